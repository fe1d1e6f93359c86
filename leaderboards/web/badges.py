"""Badges for READMEs: a small two-part SVG image, label on grey, message on colour.

Every text is escaped, cut to a length (with an ellipsis) and rid of what
XML 1.0 cannot carry (rules.xml_text: text stored before the character rule
may hold a control), so a model named with markup, at great length or with a
stray control character still makes a valid, readable image.
Nothing but shapes and text: no script, no style, no link.
"""

from django.utils.html import format_html

from leaderboards.format.rules import xml_text

# Verdana at 11px averages about 7px a character; wide enough for capitals.
CHAR_WIDTH = 7
PADDING = 6
LABEL_CHARS = 40
MESSAGE_CHARS = 60
TITLE_CHARS = 200
GREY, GREEN, BLUE = "#555", "#2e7d32", "#1f6feb"


def shorten(text, limit):
    """The text on one line, cut to `limit` characters with an ellipsis when longer."""
    text = " ".join(xml_text(str(text)).split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def badge_svg(label, message, *, title, color=GREEN):
    label, message = shorten(label, LABEL_CHARS), shorten(message, MESSAGE_CHARS)
    title = shorten(title, TITLE_CHARS)
    left = len(label) * CHAR_WIDTH + 2 * PADDING
    right = len(message) * CHAR_WIDTH + 2 * PADDING
    return format_html(
        '<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="20" role="img" '
        'aria-label="{title}"><title>{title}</title>'
        '<rect width="{left}" height="20" fill="{grey}"/>'
        '<rect x="{left}" width="{right}" height="20" fill="{color}"/>'
        '<g fill="#fff" font-family="Verdana,DejaVu Sans,sans-serif" font-size="11" '
        'text-anchor="middle">'
        '<text x="{label_x}" y="14">{label}</text><text x="{message_x}" y="14">{message}</text>'
        "</g></svg>\n",
        width=left + right,
        title=title,
        left=left,
        right=right,
        grey=GREY,
        color=color,
        label_x=left / 2,
        message_x=left + right / 2,
        label=label,
        message=message,
    )


def board_badge(board):
    """The board's best result where its first metric's direction is known, else its size.

    Read from the figures every change keeps on the board (top_*, row_count),
    so it follows the page.
    """
    name = f"{board.task.name} on {board.dataset.name}"
    if board.top_is_best and board.top_value is not None:
        message = f"{board.top_value} · {board.top_model}"
        return badge_svg(
            board.top_metric, message, title=f"{name}: best {board.top_metric} {message}"
        )
    size = f"{board.row_count} result{'' if board.row_count == 1 else 's'}"
    return badge_svg("leaderboard", size, title=f"{name}: {size}", color=BLUE)


def paper_badge(paper, best, results, boards):
    """The paper's best rank, as (rank, metric, board), or None; then its results and boards."""
    if best is not None:
        rank, metric, board = best
        message = f"#{rank} on {board.dataset.name}"
        return badge_svg(
            board.task.name,
            message,
            title=f"{paper.name}: #{rank} by {metric} on {board.task.name} on {board.dataset.name}",
        )
    message = (
        f"{results} result{'' if results == 1 else 's'} on "
        f"{boards} leaderboard{'' if boards == 1 else 's'}"
    )
    return badge_svg("sotasite", message, title=f"{paper.name}: {message}", color=BLUE)
