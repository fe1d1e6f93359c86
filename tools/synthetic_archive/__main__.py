"""`python -m tools.synthetic_archive --out DIR --papers N [--seed S] [--gzip]`."""

import argparse
import time
from pathlib import Path

from tools.synthetic_archive import write_archive
from tools.synthetic_archive.catalogue import MAX_PAPERS, MIN_PAPERS


def main(argv=None):
    """`python -m tools.synthetic_archive --out DIR --papers N [--seed S] [--gzip]`."""
    parser = argparse.ArgumentParser(
        prog="python -m tools.synthetic_archive",
        description=(
            "Write the Papers with Code archive's five files, synthetic, joined as the real "
            "ones are, with PwC's proportions: --papers 576000 is the archive at shutdown. "
            "Every slug starts with 'synthetic0'. The same --seed gives the same files."
        ),
    )
    parser.add_argument("--out", required=True, type=Path, help="folder to write into")
    parser.add_argument(
        "--papers", required=True, type=int, help=f"how many papers ({MIN_PAPERS} or more)"
    )
    parser.add_argument("--seed", default="1", help="random seed (default 1)")
    parser.add_argument("--gzip", action="store_true", help="write .json.gz files")
    options = parser.parse_args(argv)
    if not MIN_PAPERS <= options.papers <= MAX_PAPERS:
        parser.error(f"--papers must be from {MIN_PAPERS} to {MAX_PAPERS:,}")
    if options.out.exists() and not options.out.is_dir():
        parser.error(f"{options.out} exists and is not a folder")
    started = time.perf_counter()
    written = write_archive(options.out, options.papers, options.seed, options.gzip)
    counts = ", ".join(f"{count:,} {kind}" for kind, count in written.records.items())
    seconds = time.perf_counter() - started
    print(f"{counts} ({written.rows:,} board rows) written to {options.out} in {seconds:.1f} s")


if __name__ == "__main__":
    main()
