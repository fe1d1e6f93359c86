"""The words every synthetic record is made of, and the marker that keeps its slugs apart.

Every name a slug is made from starts with MARKER, a word glued to a digit that
real names do not start with ("Synthetic Data Generation" is a real PwC task;
"Synthetic0 ..." is nothing real), so every slug starts with SLUG_MARKER.
"""

import random

from leaderboards.format.rules import slug_for
from tools.synthetic_pages import AREAS, DATASET_SEEDS, NAME_HEADS, NAME_TAILS

MARKER = "Synthetic0"
SLUG_MARKER = "synthetic0"
PWC = "https://paperswithcode.com"

SYLLABLES = (
    "ka", "vo", "ru", "ti", "mel", "sa", "no", "zer", "di", "qua", "lo", "ben", "shi",
    "tor", "ae", "fi", "gra", "hu", "jin", "ko", "lu", "mi", "nex", "or", "pla", "rho",
    "sen", "tu", "ul", "var", "wen", "xi",
)  # fmt: skip
PAIRS = tuple(first + second for first in SYLLABLES for second in SYLLABLES)
TEX = (
    r"$\ell_2$", r"$\mathcal{O}(n \log n)$", r"$k$-NN", r"$\epsilon = 8/255$",
    r"$\mathbb{E}[\log p_\theta(x)]$", r"$\sqrt{d_k}$", r"$\alpha$-divergence",
)  # fmt: skip
BASE_TASKS = tuple(
    (area, name, description, metrics)
    for area, (_, tasks) in AREAS.items()
    for name, description, metrics in tasks
)
TASK_AREAS = tuple(AREAS)
# Once each: "Image" + "Net" is also a seed's ImageNet.
DATASET_BASES = tuple(
    dict.fromkeys(
        [name for names in DATASET_SEEDS.values() for name in names]
        + [head + tail for head in NAME_HEADS for tail in NAME_TAILS]
    )
)


def rng_for(seed, kind, index=0):
    """The generator of one record: the same seed, kind and index give the same draws."""
    return random.Random(f"{seed}:{kind}:{index}")


def coined(index):
    """A made-up capitalised word, a different one for every index."""
    # Spread neighbouring indexes over the alphabet: an odd multiplier is a
    # bijection modulo a power of two, and the offset keeps three syllables.
    number = (index * 0x9E3B5) % 2**20 if index < 2**20 else index
    number += len(SYLLABLES) ** 3
    # Two syllables a step; the leading step has one when it is below 32.
    parts = []
    while number >= len(PAIRS):
        number, pair = divmod(number, len(PAIRS))
        parts.append(PAIRS[pair])
    parts.append(PAIRS[number] if number >= len(SYLLABLES) else SYLLABLES[number])
    return "".join(reversed(parts)).capitalize()


def pick(rng, seq):
    """rng.choice, at a fraction of its cost: this runs for every paper."""
    return seq[int(rng.random() * len(seq))]


def title_slug(title, limit=50):
    """PwC's paper slug: the title's first words, cut at a word boundary."""
    slug = slug_for(title, "paper")
    if len(slug) > limit:
        slug = slug[:limit].rsplit("-", 1)[0]
    return slug


def pwc_url(kind, slug):
    return f"{PWC}/{kind}/{slug}"


def unissued_arxiv_id(index, year):
    """An id arXiv never issues (month 13 and above), a different one for every index."""
    return f"{year % 100:02d}{13 + index % 87:02d}.{index // 87 + 1:05d}"
