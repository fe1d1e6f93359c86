"""Import benchmark at the size of the full Papers with Code dump.

    .venv/bin/python -m bench.import [--tasks 4500] [--boards 15000] [--rows 150000] [--seed 1]

Writes a synthetic `evaluation-tables.json` of that size (tasks with subtasks,
datasets with subdatasets, rows with arXiv papers and code links), migrates a
fresh SQLite database, then times `manage.py import_pwc` on the file and again
on the same file (the re-import that finds nothing changed), each as its own
process, and reports each one's peak resident memory. Exits non-zero when a
step fails or a limit is missed.
"""

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

IMPORT_LIMIT_S = 90
REIMPORT_LIMIT_S = 45
# Bounded memory: well under what holding the whole document would take.
RSS_LIMIT_MB = 1024

WORDS = [
    "deep",
    "residual",
    "attention",
    "graph",
    "neural",
    "sparse",
    "robust",
    "efficient",
    "contrastive",
    "self-supervised",
    "transformer",
    "vision",
    "language",
    "speech",
    "retrieval",
    "detection",
    "segmentation",
    "generative",
    "adversarial",
    "diffusion",
    "learning",
    "networks",
    "models",
]
METRICS = ("Accuracy", "F1", "BLEU", "mAP", "Top-1 Accuracy", "EM", "WER", "Params")


def manage(*args, env):
    """Run one manage.py command; return (seconds, stdout) or stop the bench."""
    started = time.perf_counter()
    process = subprocess.Popen(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    stdout, stderr = process.communicate()
    elapsed = time.perf_counter() - started
    if process.returncode != 0:
        sys.exit(f"manage.py {' '.join(args)} failed ({process.returncode}):\n{stderr[-4000:]}")
    return elapsed, stdout


def peak_rss_mb(*args, env):
    """Run a command under wait4: (wall s, CPU s, peak RSS MB, stdout) of it alone.

    CPU time is reported beside wall time because the machine may be shared.
    """
    started = time.perf_counter()
    process = subprocess.Popen(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    stdout = process.stdout.read().decode()
    _, status, usage = os.wait4(process.pid, 0)
    elapsed = time.perf_counter() - started
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0:
        sys.exit(f"manage.py {' '.join(args)} failed ({process.returncode})")
    return elapsed, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, stdout


def _value(rng, metric):
    number = rng.uniform(10, 99)
    style = rng.random()
    if metric == "Params":
        return f"{rng.randint(1, 900)}M"
    if style < 0.15:
        return f"{number:.2f} ± {rng.uniform(0, 1):.2f}"
    if style < 0.3:
        return f"{number:.1f}%"
    if style < 0.33:
        return "-"
    return f"{number:.2f}"


def _row(rng, metrics, papers):
    paper_id, title, day = papers[rng.randrange(len(papers))]
    code = [
        {"title": "", "url": f"https://github.com/u{rng.randrange(10**5)}/r{i}"}
        for i in range(rng.choice((0, 0, 1, 1, 1, 2, 3)))
    ]
    return {
        "code_links": code,
        "metrics": {name: _value(rng, name) for name in metrics if rng.random() < 0.9},
        "model_links": [],
        "model_name": f"{rng.choice(WORDS).title()}-{rng.randrange(10**4)}",
        "paper_date": day,
        "paper_title": title,
        "paper_url": f"https://arxiv.org/abs/{paper_id}",
        "uses_additional_data": rng.random() < 0.05,
    }


def write_archive(path, tasks, boards, rows, seed):
    """Stream a synthetic archive to disk, one top-level task at a time."""
    rng = random.Random(seed)
    papers = [
        (
            f"{rng.randint(15, 24)}{rng.randint(1, 12):02d}.{n:05d}",
            " ".join(rng.choice(WORDS) for _ in range(rng.randint(4, 9))).capitalize(),
            f"20{rng.randint(12, 24)}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}",
        )
        for n in range(rows // 3)
    ]
    datasets = [f"Dataset {n} {rng.choice(WORDS)}" for n in range(boards // 2)]
    # Spread boards over tasks and rows over boards, exactly to the totals asked.
    per_task = [boards // tasks + (1 if n < boards % tasks else 0) for n in range(tasks)]
    per_board = [rows // boards + (1 if n < rows % boards else 0) for n in range(boards)]
    rng.shuffle(per_board)
    board_sizes = iter(per_board)

    def task(n, subtasks):
        entries = []
        for k in range(per_task[n]):
            metrics = rng.sample(METRICS, rng.randint(1, 3))
            entry = {
                "dataset": datasets[(n * 7 + k) % len(datasets)],
                "description": "",
                "dataset_citations": [],
                "dataset_links": [],
                "subdatasets": [],
                "sota": {
                    "metrics": metrics,
                    "rows": [_row(rng, metrics, papers) for _ in range(next(board_sizes))],
                },
            }
            if k and rng.random() < 0.1:
                # Some tables are a subdataset of the one before.
                entry["subdataset"] = f"Split {k}"
                del entry["dataset"]
                entries[-1]["subdatasets"].append(entry)
            else:
                entries.append(entry)
        return {
            "task": f"Task {n} {rng.choice(WORDS)} {rng.choice(WORDS)}",
            "description": f"Synthetic task number {n}.",
            "categories": [rng.choice(("Computer Vision", "Natural Language Processing"))],
            "datasets": entries,
            "subtasks": subtasks,
            "synonyms": [],
            "source_link": None,
        }

    with path.open("w", encoding="utf-8") as out:
        out.write("[")
        n = 0
        first = True
        while n < tasks:
            # A top-level task with up to four subtasks, as PwC nests them.
            children = min(rng.randint(0, 4), tasks - n - 1)
            subtasks = [task(n + 1 + c, []) for c in range(children)]
            out.write(("" if first else ",\n") + json.dumps(task(n, subtasks)))
            first = False
            n += 1 + children
        out.write("]")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=4500)
    parser.add_argument("--boards", type=int, default=15000)
    parser.add_argument("--rows", type=int, default=150000)
    parser.add_argument("--seed", default="1")
    options = parser.parse_args()

    with tempfile.TemporaryDirectory() as folder:
        archive = Path(folder) / "evaluation-tables.json"
        env = {**os.environ, "DATABASE_URL": f"sqlite:///{Path(folder) / 'db.sqlite3'}"}
        write_archive(archive, options.tasks, options.boards, options.rows, options.seed)
        size_mb = archive.stat().st_size / 2**20
        manage("migrate", "--noinput", "--verbosity", "0", env=env)
        manage("loaddata", "fixtures/areas.json", "--verbosity", "0", env=env)
        args = ("import_pwc", str(archive), "--snapshot", "2025-07-28")
        import_s, import_cpu, import_rss, import_out = peak_rss_mb(*args, env=env)
        reimport_s, reimport_cpu, reimport_rss, reimport_out = peak_rss_mb(*args, env=env)

    print(f"archive: {size_mb:.0f} MB")
    print(f"import:    {import_out.strip()}")
    print(f"re-import: {reimport_out.strip()}")
    print(f"CPU s: import {import_cpu:.1f}, re-import {reimport_cpu:.1f}")
    print(f"{'measure':<14}{'value':>10}{'limit':>8}  result")
    ok = True
    for name, value, limit in (
        ("import s", import_s, IMPORT_LIMIT_S),
        ("import MB", import_rss, RSS_LIMIT_MB),
        ("re-import s", reimport_s, REIMPORT_LIMIT_S),
        ("re-import MB", reimport_rss, RSS_LIMIT_MB),
    ):
        verdict = "pass" if value <= limit else "FAIL"
        ok = ok and value <= limit
        print(f"{name:<14}{value:>10.1f}{limit:>8}  {verdict}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
