"""Synthetic leaderboard pages in the seed format (SPEC 1), at Papers with Code size.

For load tests and benchmarks: `generate_pages(15000, seed)` gives about 150,000
rows behind about 60,000 papers, with the archive's quirks (metric strings with
units, `±` tails and blanks; rows without code, date or paper page; a paper
behind several rows and several leaderboards). Every derived figure comes from
`leaderboards.format.derive`, so a loader that re-checks the figures finds nothing.

Everything is drawn from one `random.Random(seed)`: the same seed gives the same
pages, and no set or dict is iterated where its order could depend on hashing.
"""

import bisect
import datetime
import random
import re
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path

from leaderboards.format import derive
from leaderboards.format.rules import compact_json, paper_identity

# Each area with its share of tasks and its base tasks: name, description, and
# the metrics its leaderboards report, the one the archive ranks by first.
AREAS = {
    "Computer Vision": (34, (
        ("Image Classification", "Assign an image to one of a set of classes.",
         ("Top-1 Accuracy", "Top-5 Accuracy", "Params", "GFLOPs")),
        ("Object Detection", "Locate objects in an image and name their class.",
         ("box AP", "AP50", "AP75", "Params")),
        ("Semantic Segmentation", "Assign a class to every pixel of an image.",
         ("mIoU", "Pixel Accuracy", "Params", "GFLOPs")),
        ("Instance Segmentation", "Delineate and classify each object instance.",
         ("mask AP", "box AP", "AP50")),
        ("Out-of-Distribution Detection", "Detect out-of-distribution or anomalous examples.",
         ("FPR95", "AUROC", "AUPR")),
        ("Image Generation", "Generate new images that resemble a training set.",
         ("FID", "Inception Score", "Precision", "Recall")),
        ("Pose Estimation", "Locate the keypoints of people or objects in an image.",
         ("AP", "PCK", "Params")),
        ("Depth Estimation", "Predict the depth of every pixel from images.",
         ("Abs Rel", "RMSE", "Delta < 1.25")),
        ("Image Super-Resolution", "Recover a high-resolution image from a low-resolution one.",
         ("PSNR", "SSIM", "Params")),
        ("Action Recognition", "Recognise the human action shown in a video.",
         ("Top-1 Accuracy", "Top-5 Accuracy", "GFLOPs", "Params")),
        ("Video Object Segmentation", "Segment given objects through the frames of a video.",
         ("J&F", "Jaccard (Mean)", "F-measure (Mean)")),
        ("Person Re-Identification", "Match images of the same person across cameras.",
         ("mAP", "Rank-1", "Rank-5")),
        ("Visual Question Answering", "Answer natural-language questions about an image.",
         ("Accuracy", "overall", "Params")),
        ("Image Captioning", "Describe an image in a sentence.",
         ("CIDEr", "BLEU-4", "METEOR", "SPICE")),
        ("Optical Flow Estimation", "Estimate the motion of every pixel between frames.",
         ("EPE", "Fl-all")),
        ("Anomaly Detection", "Find the samples that differ from the normal data.",
         ("AUROC", "Detection AUROC", "Segmentation AUROC")),
        ("3D Object Detection", "Locate objects with 3D bounding boxes.",
         ("mAP", "NDS", "AP")),
        ("Face Recognition", "Identify or verify a person from a face image.",
         ("Accuracy", "TAR @ FAR=0.01")),
        ("Image Denoising", "Remove noise from an image.", ("PSNR", "SSIM")),
    )),
    "Natural Language Processing": (24, (
        ("Question Answering", "Answer questions posed in natural language.",
         ("EM", "F1")),
        ("Machine Translation", "Translate text from one language into another.",
         ("BLEU", "SacreBLEU", "Number of params")),
        ("Text Classification", "Assign a category to a piece of text.",
         ("Accuracy", "F1", "Error")),
        ("Sentiment Analysis", "Classify the polarity of a text.", ("Accuracy", "F1")),
        ("Named Entity Recognition", "Find and type the named entities in a text.",
         ("F1", "Precision", "Recall")),
        ("Natural Language Inference", "Decide whether a premise entails a hypothesis.",
         ("Accuracy", "Matched", "Mismatched", "Params")),
        ("Language Modelling", "Predict the next word of a text.",
         ("Test perplexity", "Validation perplexity", "Number of params",
          "Bit per Character (BPC)")),
        ("Text Summarization", "Shorten a text while keeping its meaning.",
         ("ROUGE-1", "ROUGE-2", "ROUGE-L")),
        ("Relation Extraction", "Find the relations that hold between entities in text.",
         ("F1", "Precision", "Recall")),
        ("Semantic Parsing", "Map a sentence to a formal meaning representation.",
         ("Accuracy", "Exact Match", "Smatch")),
        ("Dependency Parsing", "Find the syntactic dependencies of a sentence.",
         ("LAS", "UAS", "POS")),
        ("Reading Comprehension", "Answer questions about a given passage.",
         ("Accuracy", "EM", "F1")),
        ("Coreference Resolution", "Group the mentions that refer to the same entity.",
         ("F1", "Avg F1")),
        ("Word Sense Disambiguation", "Pick the sense a word has in its context.",
         ("Senseval 2", "Senseval 3", "SemEval 2007", "SemEval 2013", "SemEval 2015", "ALL")),
    )),
    "Methodology": (6, (
        ("Domain Adaptation", "Transfer a model to a shifted target distribution.",
         ("Accuracy", "mIoU")),
        ("Continual Learning", "Learn tasks in sequence without forgetting.",
         ("Average Accuracy", "Forgetting")),
        ("Representation Learning", "Learn features that serve downstream tasks.",
         ("Top-1 Accuracy", "Linear Probe Accuracy", "Params")),
        ("Neural Architecture Search", "Search for a network architecture automatically.",
         ("Top-1 Error Rate", "Search Time (GPU days)", "Params")),
        ("Network Pruning", "Remove weights from a network while keeping accuracy.",
         ("Accuracy", "GFLOPs", "Params")),
        ("Quantization", "Run a network with low-precision numbers.",
         ("Top-1 Accuracy", "Weight bits", "Activation bits")),
        ("Knowledge Distillation", "Train a small model to mimic a large one.",
         ("Top-1 Accuracy", "Params")),
    )),
    "Miscellaneous": (5, (
        ("Recommendation Systems", "Predict the items a user will prefer.",
         ("Recall@20", "NDCG@20", "HR@10")),
        ("Click-Through Rate Prediction", "Predict whether a user clicks an item.",
         ("AUC", "Log Loss")),
        ("Tabular Classification", "Classify the rows of a table.", ("Accuracy", "AUC")),
        ("Clustering", "Group similar samples without labels.", ("NMI", "ACC", "ARI")),
    )),
    "Medical": (5, (
        ("Medical Image Segmentation", "Segment organs or lesions in medical scans.",
         ("Dice Score", "mean Dice", "HD95")),
        ("Lesion Segmentation", "Delineate lesions in medical images.",
         ("Dice Score", "IoU")),
        ("Disease Prediction", "Predict a diagnosis from patient data.", ("AUC", "Accuracy")),
        ("Cancer Detection", "Detect cancer in medical images.",
         ("AUC", "Sensitivity", "Specificity")),
    )),
    "Graphs": (4, (
        ("Node Classification", "Predict the label of each node of a graph.",
         ("Test Accuracy", "Validation Accuracy", "Number of params")),
        ("Link Prediction", "Predict the missing edges of a graph.",
         ("Test Hits@50", "Validation Hits@50", "Test MRR", "Number of params")),
        ("Graph Classification", "Assign a class to a whole graph.",
         ("Test ROC-AUC", "Validation ROC-AUC", "Accuracy")),
        ("Graph Regression", "Predict a number for a whole graph.", ("MAE", "Params")),
    )),
    "Time Series": (3, (
        ("Time Series Forecasting", "Predict the future values of a series.",
         ("MSE", "MAE")),
        ("Time Series Classification", "Assign a class to a whole series.",
         ("Accuracy", "F1")),
        ("Traffic Prediction", "Forecast traffic flow on a road network.",
         ("MAE @ 12 step", "RMSE", "MAPE")),
    )),
    "Audio": (3, (
        ("Audio Classification", "Assign a class to an audio clip.", ("mAP", "Accuracy")),
        ("Sound Event Detection", "Find and label the sound events in a recording.",
         ("PSDS1", "PSDS2", "Event-based F1")),
        ("Speech Enhancement", "Remove noise from recorded speech.",
         ("PESQ", "STOI", "SI-SDR")),
    )),
    "Speech": (3, (
        ("Speech Recognition", "Transcribe spoken language into text.",
         ("Word Error Rate (WER)", "Params(M)")),
        ("Speech Synthesis", "Produce natural speech from text.", ("MOS", "WER")),
        ("Speaker Verification", "Decide whether two recordings share a speaker.",
         ("EER", "minDCF")),
    )),
    "Reasoning": (3, (
        ("Arithmetic Reasoning", "Solve arithmetic word problems.",
         ("Accuracy", "Parameters (Billion)")),
        ("Common Sense Reasoning", "Answer questions that need everyday knowledge.",
         ("Accuracy",)),
        ("Logical Reasoning", "Draw valid conclusions from premises.", ("Accuracy", "EM")),
    )),
    "Computer Code": (2, (
        ("Code Generation", "Write a program from a natural-language description.",
         ("Pass@1", "Pass@10", "Pass@100")),
        ("Code Search", "Find the code that matches a query.", ("MRR", "NDCG@10")),
        ("Program Repair", "Fix the bugs in a program.", ("Accuracy", "Exact Match")),
    )),
    "Knowledge Base": (2, (
        ("Knowledge Graph Completion", "Predict the missing facts of a knowledge graph.",
         ("MRR", "Hits@1", "Hits@10")),
        ("Entity Linking", "Link mentions in text to knowledge-base entries.",
         ("Micro-F1", "Macro-F1")),
        ("Entity Alignment", "Match the entities of two knowledge graphs.",
         ("Hits@1", "MRR")),
    )),
    "Robots": (2, (
        ("Robot Manipulation", "Control a robot arm to handle objects.",
         ("Success Rate", "Average Length")),
        ("Visual Navigation", "Reach a goal from egocentric observations.",
         ("SPL", "Success Rate")),
        ("Continuous Control", "Control a simulated body with continuous actions.",
         ("Return", "Average Return")),
    )),
    "Playing Games": (2, (
        ("Atari Games", "Play Atari 2600 games from pixels.", ("Score", "Human Normalized Score")),
        ("NetHack", "Play the NetHack roguelike.", ("Average Score", "Median Score")),
        ("Game of Go", "Play the board game Go.", ("Elo Rating",)),
    )),
    "Music": (1, (
        ("Music Generation", "Compose music.", ("FAD", "KL")),
        ("Music Transcription", "Write down the notes of a recording.",
         ("Onset F1", "Note F1")),
    )),
    "Adversarial": (1, (
        ("Adversarial Defense", "Resist inputs crafted to fool a model.",
         ("Robust Accuracy", "Clean Accuracy", "AutoAttack")),
        ("Adversarial Attack", "Craft inputs that fool a model.",
         ("Attack Success Rate", "Average Queries")),
    )),
}  # fmt: skip

TASK_MODIFIERS = (
    "Few-Shot", "Zero-Shot", "Unsupervised", "Weakly Supervised", "Semi-Supervised",
    "Self-Supervised", "Multi-Label", "Cross-Domain", "Long-tail", "Open Vocabulary",
    "Multimodal", "Online", "Continual", "Real-Time", "Fine-Grained", "Multilingual",
    "Low-Resource", "Federated", "Robust", "Interactive", "Incremental", "Generalized",
    "Open-Set", "Source-Free", "Test-Time", "Video", "3D", "Multi-View", "Hierarchical",
    "Privacy-Preserving", "Noisy-Label", "Efficient", "Class-Incremental", "Document",
    "Conversational", "Temporal", "Spatio-Temporal", "Universal", "Compositional",
    "Egocentric",
)  # fmt: skip

# How each kind of metric runs: (low, high, decimals, real direction, family).
# The direction orders the archive's rows; a page states it only when the
# name alone gives it away (INFERRED_DIRECTIONS). The family picks how the
# archive writes the numbers.
METRIC_KINDS = {
    "percent": (40, 99.5, 2, "higher", "pct"),
    "percent_low": (15, 75, 1, "higher", "pct"),
    "error": (1, 40, 2, "lower", "pct"),
    "fraction": (0.5, 0.97, 4, "higher", "frac"),
    "fraction_low": (0.1, 0.6, 4, "higher", "frac"),
    "loss": (0.05, 2, 3, "lower", "plain"),
    "distance": (1, 60, 2, "lower", "plain"),
    "score": (5, 300, 2, "higher", "plain"),
    "decibels": (20, 40, 2, "higher", "plain"),
    "small": (1, 5, 2, "higher", "plain"),
    "size": (0.3, 3000, 1, None, "count"),
    "cost": (0.1, 900, 1, None, "plain"),
    "bits": (2, 8, 0, None, "plain"),
    "game": (100, 60000, 0, "higher", "thousands"),
}
_KIND_NAMES = {
    "percent": (
        "Top-1 Accuracy", "Top-5 Accuracy", "Pixel Accuracy", "AUROC", "AUPR", "Precision",
        "Recall", "PCK", "Delta < 1.25", "J&F", "Jaccard (Mean)", "F-measure (Mean)",
        "Rank-1", "Rank-5", "Accuracy", "overall", "Detection AUROC", "Segmentation AUROC",
        "TAR @ FAR=0.01", "EM", "F1", "Matched", "Mismatched", "Exact Match", "LAS", "UAS",
        "POS", "Avg F1", "Senseval 2", "Senseval 3", "SemEval 2007", "SemEval 2013",
        "SemEval 2015", "ALL", "Average Accuracy", "Linear Probe Accuracy", "NMI", "ACC",
        "ARI", "Sensitivity", "Specificity", "Event-based F1", "Pass@10", "Pass@100",
        "Micro-F1", "Macro-F1", "Success Rate", "Clean Accuracy", "Attack Success Rate",
        "Onset F1", "Note F1", "IoU", "Smatch", "HR@10", "Human Normalized Score",
    ),
    "percent_low": (
        "box AP", "AP50", "AP75", "mIoU", "mask AP", "AP", "mAP", "NDS", "BLEU-4", "METEOR",
        "SPICE", "BLEU", "SacreBLEU", "ROUGE-1", "ROUGE-2", "ROUGE-L", "Robust Accuracy",
        "AutoAttack", "Pass@1", "SPL", "PSDS1", "PSDS2",
    ),
    "error": (
        "FPR95", "Error", "Top-1 Error Rate", "Forgetting", "Word Error Rate (WER)", "WER",
        "EER", "MAPE", "Fl-all",
    ),
    "fraction": (
        "SSIM", "AUC", "Dice Score", "mean Dice", "Test Accuracy", "Validation Accuracy",
        "Test ROC-AUC", "Validation ROC-AUC", "STOI",
    ),
    "fraction_low": (
        "Test Hits@50", "Validation Hits@50", "Test MRR", "MRR", "NDCG@10", "NDCG@20",
        "Recall@20", "Hits@1", "Hits@10",
    ),
    "loss": (
        "Abs Rel", "RMSE", "MAE", "MSE", "MAE @ 12 step", "Log Loss", "Bit per Character (BPC)",
        "KL", "minDCF",
    ),
    "distance": (
        "FID", "HD95", "EPE", "Test perplexity", "Validation perplexity", "FAD",
    ),
    "score": ("Inception Score", "CIDEr"),
    "decibels": ("PSNR", "SI-SDR"),
    "small": ("PESQ", "MOS", "Average Length"),
    "size": ("Params", "Number of params"),
    "cost": (
        "GFLOPs", "Search Time (GPU days)", "Average Queries", "Inference Time (ms)",
        "Parameters (Billion)", "Params(M)",
    ),
    "bits": ("Weight bits", "Activation bits"),
    "game": ("Score", "Average Score", "Median Score", "Return", "Average Return", "Elo Rating"),
}  # fmt: skip
METRIC_SPECS = {name: METRIC_KINDS[kind] for kind, names in _KIND_NAMES.items() for name in names}
# What a page may add to its task's metrics: the costs PwC boards often carry.
COST_METRICS = ("Params", "GFLOPs", "Inference Time (ms)", "Number of params")

# What the site's name-only inference knows; like the seed (FPR95 and AUROC
# unknown there), it leaves most names alone.
INFERRED_DIRECTIONS = {
    "Top-1 Accuracy": "higher",
    "Top-5 Accuracy": "higher",
    "BLEU": "higher",
    "PSNR": "higher",
    "FID": "lower",
    "Test perplexity": "lower",
    "Validation perplexity": "lower",
    "WER": "lower",
    "Word Error Rate (WER)": "lower",
    "Top-1 Error Rate": "lower",
    "MSE": "lower",
    "MAE": "lower",
    "RMSE": "lower",
}

DATASET_SEEDS = {
    "Computer Vision": ("ImageNet", "CIFAR-10", "CIFAR-100", "COCO", "ADE20K",
                        "Cityscapes", "KITTI", "Kinetics-400", "ScanNet", "CelebA-HQ",
                        "ImageNet-1k vs SUN", "Places365", "DAVIS 2017", "LFW"),
    "Natural Language Processing": ("SQuAD1.1", "GLUE", "WMT2014 English-German", "SST-2",
                                    "CoNLL 2003", "ANLI test", "WikiText-103", "CNN / Daily Mail",
                                    "MultiNLI", "Penn Treebank"),
    "Graphs": ("ogbn-arxiv", "ogbl-collab", "Cora", "PubMed", "ZINC"),
    "Speech": ("LibriSpeech test-clean", "AISHELL-1", "VoxCeleb1", "Common Voice"),
    "Playing Games": ("Atari 2600 Breakout", "Atari 2600 Montezuma's Revenge"),
    "Medical": ("BraTS 2021", "ISIC 2018", "CheXpert", "Synapse multi-organ CT"),
}  # fmt: skip

NAME_HEADS = (
    "Vox", "Scan", "Open", "Med", "Wiki", "Image", "Video", "Graph", "Text", "Code",
    "Speech", "Robo", "Sound", "City", "Face", "Deep", "Multi", "Cross", "Hyper",
    "Nu", "Sem", "Hand", "Object", "Scene", "Doc", "Chart", "Ego", "Traffic", "Lex",
    "Math", "Bio", "Geo", "Astro", "Chem", "Fin", "Legal", "Poly", "Mini", "Tiny",
)  # fmt: skip
NAME_TAILS = (
    "Net", "Bench", "QA", "Set", "Scenes", "Corpus", "Bank", "Vision", "Eval", "Wild",
    "Pedia", "Hub", "Data", "Lab", "Zoo", "Gym", "World", "Verse", "Sense", "Track",
)  # fmt: skip
NAME_SUFFIXES = ("", "", "", "-1K", "-10", "-100", " v2", " 2.0", "-3D", "-HQ", "-C",
                 " (test)", " (val)", "-LT", "-R", "-O", " 2021", " 2019")  # fmt: skip

METHOD_HEADS = (
    "Re", "De", "Con", "Trans", "Vi", "Swin", "Mix", "Dis", "Uni", "Omni", "Flex",
    "Meta", "Hyper", "Graph", "Auto", "Co", "Neo", "Pro", "Sim", "Mo", "Dense",
    "Sparse", "Deep", "Fast", "Tiny", "Eff", "Res", "Inter", "Cross", "Self", "Dyn",
    "Poly", "Lin", "Info", "Mask", "Seg", "Pose", "Flow", "Mamba", "Lumi",
)  # fmt: skip
METHOD_TAILS = (
    "Net", "Former", "Mix", "Act", "GAN", "BERT", "ViT", "Match", "Diff", "Seg",
    "CLR", "Fuse", "Track", "Gen", "Prompt", "Align", "Boost", "Det", "Rank",
    "Flow", "GPT", "LM", "CLIP", "Coder", "Att", "Guide", "Norm", "Feat",
)  # fmt: skip
BACKBONES = {
    "Computer Vision": ("ResNet-50", "ResNet-101", "ViT-B/16", "ViT-L/14", "Swin-T",
                        "ConvNeXt-B", "EfficientNet-B7", "CLIP-L", "RegNet", "ResNetv2-101",
                        "BiT-S-R101x1", "384res, JFT"),
    "Natural Language Processing": ("BERT-base", "RoBERTa-large", "T5-3B", "LLaMA-2 7B",
                                    "one-shot", "fine-tuned", "ensemble", "single model"),
}  # fmt: skip
GENERIC_VARIANTS = ("large", "base", "small", "ensemble", "w/ LM", "with TTA", "single",
                    "pre-trained", "from scratch", "multi-scale")  # fmt: skip
SIZE_SUFFIXES = ("S", "B", "L", "XL", "H", "T", "v2", "++", "Large", "Lite")

TITLE_ADJECTIVES = (
    "Robust", "Efficient", "Scalable", "Simple", "Unified", "Self-Supervised", "Sparse",
    "Hierarchical", "Contrastive", "Generalizable", "Lightweight", "Adaptive",
    "Multi-Scale", "Probabilistic", "Calibrated", "Label-Efficient", "Training-Free",
)  # fmt: skip
TITLE_NOUNS = (
    "Transformers", "Representations", "Attention", "Prompt Tuning", "Activation Shaping",
    "Feature Alignment", "Diffusion Models", "Graph Neural Networks",
    "Knowledge Distillation", "Masked Modeling", "Nearest Neighbors", "Energy Scores",
    "State Space Models", "Mixture of Experts", "Rényi Divergences",
    "Poincaré Embeddings", "Schrödinger Bridges", "Fréchet Features", "Token Pruning",
)  # fmt: skip
TITLE_QUALITIES = ("Effectiveness", "Importance", "Limits", "Role", "Robustness")
TITLE_TEMPLATES = (
    "{m}: {a} {n} for {t}",
    "{a} {n} for {t}",
    "Towards {a} {t}",
    "Rethinking {n} in {t}",
    "{m}: Towards {a} {t} with {n}",
    "On the {q} of {n} for {t}",
    "{n} Is All You Need for {t}",
    "Learning {a} {n} for {t}",
    "{m}: {a} {t} via {n}",
    "{m}: Leveraging {n} for {a} {t}",
)
OPENREVIEW_LETTERS = "abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ0123456789"
CODE_OWNERS = (
    "facebookresearch", "google-research", "microsoft", "open-mmlab", "huggingface",
    "deeplearning-wisc", "tmlr-group", "NVlabs", "salesforce", "THUDM", "OpenGVLab",
    "lucidrains", "dvlab-research", "alibaba", "baidu-research", "kakaobrain",
)  # fmt: skip

# The seed's fixed texts: the same on every page of one archive snapshot.
SOURCE = {
    "archive": "pwc-archive (Hugging Face), CC BY-SA 4.0",
    "snapshot": "2025-07-28",
    "rank": "the archive's row order at snapshot; not re-ranked",
    "rows_end_at": "2025-07-28",
    "rows_withheld_as_spam": 0,
    "metric_values": "the archive's strings, untouched",
}
DIRECTION_NOTE = (
    "inferred from the metric name only (the archive records no direction); "
    "null = not inferred, chart draws points only"
)
SINCE_CLAIM = (
    "Results that newer papers report for their own method, placed here by Syntology. "
    "A model pointed at the cell in the paper's own table; the number was read from "
    "that cell and checked against this leaderboard's metric, dataset, split and scale; "
    "an independent check that saw this leaderboard's other rows and every other "
    "leaderboard on the same dataset accepted it. Not reviewed by the paper's authors "
    "or by the archive's editors, and not ranked against the archive rows."
)
MEASUREMENT_NOTE = (
    "blind adjudication of accepted entries on a held-out split of archive papers, "
    "rules frozen before the test"
)
SINCE_ORDER = (
    "newest first by month (arXiv date, else the arXiv-id month), then arXiv id descending"
)
SYNTOLOGY_CLAIM = (
    "Per row: N of M harvested code samples from that row's paper executed on a "
    "synthesized fixture; the other M-N are unverified. Not a reproduction of the row's "
    "number; not a correctness claim. n_pointer_only_licence counts samples the site "
    "points at rather than redistributes (a licence axis, independent of ran/unverified)."
)
DISTINCT_NOTE = (
    "each paper (arXiv id) counted once, however many rows it is behind; "
    "this is the page-level figure"
)
ROW_WEIGHTED_NOTE = (
    "row-weighted: a paper behind several rows is counted once per row; inflated "
    "relative to samples_over_distinct_papers by design, kept for readers summing "
    "the per-row syntology blocks"
)
SINCE_COLUMNS = ("model", "metric", "value", "paper", "arxiv_id", "month")

ARCHIVE_END = datetime.date(2025, 7, 28)
# Papers per year in the archive grow until the archive stops mid-2025.
PAPER_YEARS = tuple(range(2013, 2026))
PAPER_YEAR_WEIGHTS = (1, 2, 3, 5, 7, 10, 13, 16, 19, 21, 22, 18, 9)

# Rows per page follow a power law, P(n >= k) = (ROWS_MIN / k) ** ROWS_ALPHA:
# a quarter of the pages have one row, nine in ten at most 15, about one in
# seventy more than 100, a handful over 1,000; the mean is about 10.
ROWS_MIN = 1.5
ROWS_ALPHA = 1.03
MAX_ROWS = 3000
METRIC_COUNT_WEIGHTS = (40, 28, 14, 9, 5, 4)
MAX_METRICS = len(METRIC_COUNT_WEIGHTS)

# Where a row's paper comes from; the rest are new papers. Tuned so that
# distinct papers are about 40% of rows, as in the archive.
SAME_PAGE_SHARE = 0.10
SAME_TASK_SHARE = 0.22
POPULAR_SHARE = 0.29


def _pick(rng, seq):
    """rng.choice, at a fraction of its cost: this runs for every row."""
    return seq[int(rng.random() * len(seq))]


class _Weighted:
    """A weighted choice with the cumulative weights computed once."""

    __slots__ = ("items", "cumulative", "total")

    def __init__(self, items, weights):
        self.items = tuple(items)
        self.cumulative = []
        total = 0
        for weight in weights:
            total += weight
            self.cumulative.append(total)
        self.total = total

    def draw(self, rng):
        return self.items[bisect.bisect(self.cumulative, rng.random() * self.total)]


def _year_spans():
    spans = []
    for year in PAPER_YEARS:
        first = datetime.date(year, 1, 1).toordinal()
        last = min(datetime.date(year, 12, 31), ARCHIVE_END).toordinal()
        spans.append((first, last - first + 1))
    return _Weighted(spans, PAPER_YEAR_WEIGHTS)


PAPER_DAYS = _year_spans()
METRIC_COUNTS = _Weighted(range(1, 7), METRIC_COUNT_WEIGHTS)
VALUE_STYLES = {
    "pct": _Weighted(("plain", "percent", "pm"), (70, 25, 5)),
    "frac": _Weighted(("plain", "pm"), (1, 1)),
    "count": _Weighted(("M", "B", "K", "raw", "raw_commas"), (60, 10, 5, 15, 10)),
    "thousands": _Weighted(("commas", "plain", "decimal"), (60, 30, 10)),
    "plain": _Weighted(("plain", "pm"), (95, 5)),
}


@dataclass(slots=True)
class Task:
    name: str
    slug: str
    categories: list
    description: str
    note: str | None
    metrics: list
    papers: list = field(default_factory=list)


@dataclass(slots=True)
class Dataset:
    name: str
    slug: str
    description: str


@dataclass(slots=True)
class Paper:
    method: str
    title: str
    page: str | None
    url: str
    date: str | None
    code: str | None
    n_code_links: int
    syntology: dict | None


@dataclass(slots=True)
class RunFacts:
    """What one Syntology run states identically on every page."""

    measurement: dict
    coverage: dict
    read_at: datetime.datetime


_WORD = re.compile(r"[a-z0-9]+")


def slugify(text, limit=60):
    """A PwC-style slug: ASCII words joined by hyphens, cut at a word boundary."""
    if not text.isascii():
        # "Rényi" becomes "renyi", not "r-nyi".
        text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    words = _WORD.findall(text.lower())
    slug = ""
    for word in words:
        candidate = f"{slug}-{word}" if slug else word
        if len(candidate) > limit and slug:
            break
        slug = candidate
    return slug or "x"


class _Registry:
    """Hands out unique names, suffixing "-1", "-2" on a repeat, as PwC does."""

    def __init__(self):
        self._taken = set()
        self._last_suffix = {}

    def claim(self, name):
        unique = name
        suffix = self._last_suffix.get(name, 0)
        # A name can itself end in "-1" and be taken as another's suffix.
        while unique in self._taken:
            suffix += 1
            unique = f"{name}-{suffix}"
        self._last_suffix[name] = suffix
        self._taken.add(unique)
        return unique

    def __contains__(self, name):
        return name in self._taken


# Every task, dataset, paper and so board slug starts with this: the names are real
# ones ("AISHELL-1", "Speech Recognition"), and a generated board once took the real
# board's slug and replaced it in a load. The archive generator's marker is synthetic0.
SLUG_MARKER = "synthetic1"


class _MarkedRegistry(_Registry):
    """A _Registry whose every slug starts with SLUG_MARKER, never a real page's."""

    def claim(self, name):
        return super().claim(f"{SLUG_MARKER}-{name}")


class _Archive:
    """The shared world the pages are cut from: tasks, datasets and papers."""

    def __init__(self, rng):
        self.rng = rng
        self.areas = _Weighted(AREAS, [weight for weight, _ in AREAS.values()])
        self.tasks = []
        self.task_of_board = []
        self.task_names = _Registry()
        self.task_slugs = _MarkedRegistry()
        self.datasets = {area: [] for area in AREAS}
        self.dataset_names = _Registry()
        self.dataset_slugs = _MarkedRegistry()
        self.board_slugs = _Registry()
        self.paper_slugs = _MarkedRegistry()
        self.arxiv_ids = set()
        self.other_urls = set()
        # One entry per row that cites a paper: drawing from it favours the
        # papers already behind many rows, as the archive's classics are.
        self.paper_uses = []

    # Tasks: about 0.3 per board, the busy ones drawing more boards.
    def pick_task(self):
        rng = self.rng
        roll = rng.random()
        if not self.tasks or roll < 0.3:
            task = self.new_task()
        elif roll < 0.65:
            task = rng.choice(self.task_of_board)
        else:
            task = rng.choice(self.tasks)
        self.task_of_board.append(task)
        return task

    def new_task(self):
        rng = self.rng
        area = self.areas.draw(rng)
        base, description, base_metrics = _pick(rng, AREAS[area][1])
        name = base
        while name in self.task_names:
            modifiers = rng.sample(TASK_MODIFIERS, rng.choice((1, 1, 1, 2)))
            name = " ".join((*modifiers, base))
        self.task_names.claim(name)
        categories = [area]
        if rng.random() < 0.1:
            other = self.areas.draw(rng)
            if other != area:
                categories.append(other)
        if name != base and rng.random() < 0.7:
            setting = name.removesuffix(base).strip().lower()
            description = f"{description} In the {setting} setting."
        if rng.random() < 0.03:
            description = ""
        note = None
        if rng.random() < 0.04:
            note = f'merged from the archive\'s "{base} ({rng.choice(TASK_MODIFIERS)})"'
        # The ranking metric stays first; the task may add a cost column.
        metrics = list(base_metrics)
        if len(metrics) < MAX_METRICS and rng.random() < 0.2:
            extra = [name for name in COST_METRICS if name not in metrics]
            metrics.append(_pick(rng, extra))
        task = Task(name, self.task_slugs.claim(slugify(name)), categories,
                    description, note, metrics)  # fmt: skip
        self.tasks.append(task)
        return task

    # Datasets: shared within an area, a new one for about half the boards.
    def pick_dataset(self, area):
        pool = self.datasets[area]
        if pool and self.rng.random() < 0.55:
            return self.rng.choice(pool)
        dataset = self.new_dataset(area)
        pool.append(dataset)
        return dataset

    def new_dataset(self, area):
        rng = self.rng
        known = [n for n in DATASET_SEEDS.get(area, ()) if n not in self.dataset_names]
        if known and rng.random() < 0.5:
            name = rng.choice(known)
        else:
            # About 12,000 names can be made up, and the 10x set needs some
            # 67,000 datasets: once a hundred draws find only taken names,
            # the last one is numbered ("-2") instead of drawing forever.
            for _ in range(100):
                name = rng.choice(NAME_HEADS) + rng.choice(NAME_TAILS)
                name += rng.choice(NAME_SUFFIXES)
                if name not in self.dataset_names:
                    break
        name = self.dataset_names.claim(name)
        description = f"The {name} benchmark."
        return Dataset(name, self.dataset_slugs.claim(slugify(name, 40)), description)

    def board_slug(self, task, dataset):
        return self.board_slugs.claim(f"{task.slug}-on-{dataset.slug}")

    # Papers: from this page, from the task's other boards, popular, or new.
    def pick_paper(self, task, page_papers):
        rng = self.rng
        roll = rng.random()
        if page_papers and roll < SAME_PAGE_SHARE:
            return _pick(rng, page_papers)
        roll -= SAME_PAGE_SHARE
        if task.papers and roll < SAME_TASK_SHARE:
            return _pick(rng, task.papers)
        roll -= SAME_TASK_SHARE
        if self.paper_uses and roll < POPULAR_SHARE:
            return _pick(rng, self.paper_uses)
        return self.new_paper(task)

    def new_paper(self, task):
        rng = self.rng
        method = _method_name(rng)
        title = _pick(rng, TITLE_TEMPLATES).format(
            m=method,
            a=_pick(rng, TITLE_ADJECTIVES),
            n=_pick(rng, TITLE_NOUNS),
            t=task.name,
            q=_pick(rng, TITLE_QUALITIES),
        )
        day = _paper_day(rng)
        page = None
        if rng.random() < 0.97:
            page = "/paper/" + self.paper_slugs.claim(slugify(title, 45))
        code, n_links = _code_links(rng, method)
        return Paper(
            method=method,
            title=title,
            page=page,
            url=self.paper_url(day),
            date=None if rng.random() < 0.04 else day.isoformat(),
            code=code,
            n_code_links=n_links,
            syntology=_row_syntology(rng) if code and rng.random() < 0.55 else None,
        )

    def paper_url(self, day):
        rng = self.rng
        if rng.random() < 0.86:
            return f"https://arxiv.org/abs/{self.arxiv_id(day)}v{_pick(rng, '1112223')}"
        # A paper without a page is known by its URL (rules.paper_identity),
        # so two papers must never share one.
        url = None
        while url is None or url in self.other_urls:
            url = _venue_url(rng, day)
        self.other_urls.add(url)
        return url

    def arxiv_id(self, day):
        # Five-digit sequence numbers since 2015, four before, as arXiv has.
        digits = 5 if day.year >= 2015 else 4
        while True:
            number = 1 + int(self.rng.random() * (10**digits - 1))
            ident = f"{day.year % 100:02d}{day.month:02d}.{number:0{digits}d}"
            if ident not in self.arxiv_ids:
                self.arxiv_ids.add(ident)
                return ident


def _venue_url(rng, day):
    roll = rng.random()
    if roll < 0.5:
        token = "".join(rng.choices(OPENREVIEW_LETTERS, k=10))
        return f"https://openreview.net/forum?id={token}"
    if roll < 0.8:
        return f"https://aclanthology.org/{day.year}.acl-long.{rng.randrange(1, 900)}/"
    digest = f"{rng.getrandbits(128):032x}"
    return f"https://proceedings.neurips.cc/paper/{day.year}/hash/{digest}-Abstract.html"


def _method_name(rng):
    roll = rng.random()
    if roll < 0.5:
        return _pick(rng, METHOD_HEADS) + _pick(rng, METHOD_TAILS)
    acronym = "".join(rng.choices("ABCDEFGHIKLMNOPRSTUVW", k=2 + int(rng.random() * 4)))
    if roll < 0.85:
        return acronym
    return f"{acronym}-{_pick(rng, SIZE_SUFFIXES)}"


def _model_name(rng, paper, area):
    roll = rng.random()
    if roll < 0.55:
        return paper.method
    if roll < 0.85:
        variants = BACKBONES.get(area, GENERIC_VARIANTS)
        return f"{paper.method} ({_pick(rng, variants)})"
    if roll < 0.95 and "-" not in paper.method:
        return f"{paper.method}-{_pick(rng, SIZE_SUFFIXES)}"
    return f"{paper.method} + {_method_name(rng)}"


def _paper_day(rng):
    first, days = PAPER_DAYS.draw(rng)
    return datetime.date.fromordinal(first + int(rng.random() * days))


def _code_links(rng, method):
    if rng.random() < 0.33:
        return None, 0
    roll = rng.random()
    if roll < 0.65:
        count = 1
    elif roll < 0.85:
        count = 2
    elif roll < 0.97:
        count = rng.randint(3, 6)
    else:
        count = rng.randint(7, 40)
    if rng.random() < 0.6:
        owner = _pick(rng, CODE_OWNERS)
    else:
        owner = (rng.choice(METHOD_HEADS) + rng.choice(NAME_TAILS)).lower()
        owner += str(rng.randrange(100))
    repo = re.sub(r"[^a-z0-9]+", "-", method.lower()).strip("-") or "code"
    return f"https://github.com/{owner}/{repo}", count


def _row_syntology(rng):
    """One paper's counters; every row citing the paper carries the same."""
    samples = min(120, int(rng.paretovariate(0.9)))
    ran = 0 if rng.random() < 0.12 else round(samples * rng.uniform(0.2, 1.0))
    roll = rng.random()
    if roll < 0.6:
        pointer_only = 0
    elif roll < 0.75:
        pointer_only = samples
    else:
        pointer_only = rng.randint(0, samples)
    return {
        "n_ran": ran,
        "n_unverified": samples - ran,
        "n_samples": samples,
        "n_pointer_only_licence": pointer_only,
    }


def _row_counts(rng, boards):
    """Rows for each board, from the power law cut at MAX_ROWS.

    One draw per equal slice of the distribution, then shuffled: the tail
    that carries most rows is the same size for every seed, so the total
    stays near 10 per board instead of swinging with a few huge pages.
    """
    floor = (ROWS_MIN / (MAX_ROWS + 1)) ** ROWS_ALPHA
    counts = []
    for index in range(boards):
        share = floor + (1.0 - floor) * (index + rng.random()) / boards
        counts.append(int(ROWS_MIN * share ** (-1.0 / ROWS_ALPHA)))
    rng.shuffle(counts)
    return counts


# Metric values ------------------------------------------------------------


def _value_style(rng, family):
    """How one page writes one metric; pages differ, a page is consistent."""
    return VALUE_STYLES[family].draw(rng)


def _format_value(rng, number, decimals, style):
    """The string the archive would hold for one number (count: millions)."""
    # Sizes: the number is in millions; a size too small for its unit is
    # written one unit down, as the archive's authors would.
    if style == "B" and number >= 100:
        return f"{number / 1000:.1f}B"
    if style == "K" and number < 1:
        return f"{number * 1000:.0f}K"
    if style in ("M", "B", "K"):
        return f"{number:.{_pick(rng, (0, 1, 2)) if number >= 10 else 2}f}M"
    if style == "raw":
        return f"{number * 1e6:.0f}"
    if style == "raw_commas":
        return f"{number * 1e6:,.0f}"
    if style == "commas":
        return f"{number:,.0f}"
    if style == "decimal":
        return f"{number:.1f}"
    text = f"{number:.{decimals}f}"
    if style == "percent":
        return text + "%"
    if style == "pm":
        spread = abs(number) * rng.uniform(0.001, 0.05)
        return f"{text} ± {spread:.{max(decimals, 1)}f}"
    return text


# The archive's rare oddities: a cell with no number, a stray leading space.
BLANK_SHARE = 0.012
QUIRK_SHARE = 0.02


def _quirk(rng, roll, text):
    if roll < BLANK_SHARE:
        return _pick(rng, ("", "—", "-", "N/A"))
    return " " + text.split(".")[0].split(" ")[0]


class _MetricColumn:
    """One metric on one page: its range there and how the page writes it."""

    __slots__ = ("name", "decimals", "direction", "style", "plain", "low", "span")

    def __init__(self, rng, name):
        low, high, decimals, direction, family = METRIC_SPECS[name]
        self.name = name
        self.direction = direction
        self.decimals = decimals
        self.style = _value_style(rng, family)
        # Most cells are a plain number: a ready-made formatter saves time.
        self.plain = f"{{:.{decimals}f}}".format if self.style == "plain" else None
        if family == "count" or family == "thousands":
            # Sizes and game scores spread over orders of magnitude.
            self.low = low * (high / low) ** rng.random()
            self.span = self.low * rng.uniform(0.5, 3)
        else:
            width = high - low
            self.low = low + width * rng.uniform(0, 0.5)
            self.span = width * rng.uniform(0.1, 0.5)

    def draw(self, rng):
        return self.low + self.span * rng.random()

    def text(self, rng, number):
        roll = rng.random()
        if self.plain:
            text = self.plain(number)
        else:
            text = _format_value(rng, number, self.decimals, self.style)
        return text if roll >= QUIRK_SHARE else _quirk(rng, roll, text)


# Pages -------------------------------------------------------------------


def _page_metrics(rng, task):
    """The task's metrics, or the first few of them, or a few more."""
    count = METRIC_COUNTS.draw(rng)
    if count >= len(task.metrics) or rng.random() < 0.4:
        names = list(task.metrics)
        spare = [name for name in COST_METRICS if name not in names]
        wanted = max(0, min(count, MAX_METRICS) - len(names))
        names += rng.sample(spare, min(wanted, len(spare)))
        return names
    return task.metrics[:count]


def _key_order(rng, columns):
    """The order a page's rows list their metrics: the seed's is alphabetical."""
    roll = rng.random()
    if roll < 0.55:
        return sorted(columns, key=lambda column: column.name)
    if roll < 0.9:
        return list(columns)
    return list(reversed(columns))


def _rows(archive, task, columns, count):
    rng = archive.rng
    area = task.categories[0]
    # A page where no metric is missing is the common case; elsewhere a
    # share of the cells is simply absent from the row's metrics object.
    missing = 0.0 if rng.random() < 0.7 else rng.uniform(0.05, 0.4)
    primary = columns[0]
    ordered = _key_order(rng, columns)
    page_papers = []
    drafts = []
    for _ in range(count):
        paper = archive.pick_paper(task, page_papers)
        page_papers.append(paper)
        # The first metric is always there: the archive ranks by it.
        key = primary.draw(rng)
        metrics = {}
        for column in ordered:
            if column is primary:
                metrics[column.name] = column.text(rng, key)
            elif rng.random() >= missing:
                metrics[column.name] = column.text(rng, column.draw(rng))
        drafts.append((key, paper, metrics))
    archive.paper_uses += page_papers
    task.papers += page_papers
    _rank(rng, drafts, primary.direction)
    return [
        _row(rng, rank, paper, metrics, area)
        for rank, (_, paper, metrics) in enumerate(drafts, start=1)
    ]


def _rank(rng, drafts, direction):
    """Archive order: by the first metric, best first, on most pages."""
    if rng.random() < 0.1:
        return
    descending = direction != "lower"
    drafts.sort(key=lambda draft: draft[0], reverse=descending)


def _row(rng, rank, paper, metrics, area):
    block = paper.syntology
    return {
        "rank_in_archive_order": rank,
        "model": _model_name(rng, paper, area),
        "metrics": metrics,
        "uses_additional_data": rng.random() < 0.05,
        "paper_date": paper.date,
        "paper": paper.page,
        "paper_url": paper.url,
        "paper_title": paper.title,
        "code": paper.code,
        "n_code_links": paper.n_code_links,
        # A copy per row, so that a reader changing one row changes no other.
        "syntology": dict(block) if block is not None else None,
    }


def _since_archive(rng, facts, columns, with_entries):
    present = with_entries or rng.random() < 0.7
    names = list(SINCE_COLUMNS) if with_entries else []
    if with_entries and rng.random() < 0.15:
        names.append("table")
    entries = _since_entries(rng, columns, names) if with_entries else []
    return {
        "claim": SINCE_CLAIM,
        "extraction_file_present": present,
        "measurement": dict(facts.measurement),
        "measurement_note": MEASUREMENT_NOTE,
        "coverage": dict(facts.coverage),
        "order": SINCE_ORDER,
        "columns": names,
        "entries": entries,
    }


def _since_entries(rng, columns, names):
    entries = []
    for _ in range(min(40, int(rng.paretovariate(1.2)))):
        month = datetime.date(2025, 8, 1) + datetime.timedelta(days=rng.randrange(420))
        column = rng.choice(columns)
        values = {
            "model": _method_name(rng),
            "metric": column.name,
            "value": column.text(rng, column.draw(rng)),
            "paper": f"{_method_name(rng)}: {rng.choice(TITLE_ADJECTIVES)} "
            f"{rng.choice(TITLE_NOUNS)}",
            "arxiv_id": f"{month:%y%m}.{rng.randrange(1, 99999):05d}",
            "month": f"{month:%Y-%m}",
            "table": f"Table {rng.randint(1, 9)}",
        }
        entries.append({name: values[name] for name in names})
    entries.sort(key=lambda entry: (entry["month"], entry["arxiv_id"]), reverse=True)
    return entries


def _page_syntology(rows, read_at):
    figures = derive.syntology_figures(rows)
    figures["samples_over_distinct_papers"]["note"] = DISTINCT_NOTE
    figures["samples_row_weighted"]["note"] = ROW_WEIGHTED_NOTE
    return {"read_at": read_at, "claim": SYNTOLOGY_CLAIM, **figures}


def _run_facts(rng):
    tested = rng.randint(700, 1000)
    judged = rng.randint(80, 160)
    judged_true = judged - rng.randint(0, 8)
    newer = rng.randint(8000, 11000)
    checked = int(newer * rng.uniform(0.6, 0.8))
    not_verified = rng.randint(0, 40)
    measurement = {
        "test_papers": tested,
        "papers_with_output": tested - rng.randint(0, 5),
        "judged_true": judged_true,
        "judged": judged,
        "wilson95_lower": derive.wilson_lower(judged_true, judged),
        "measured_on": "2026-09-24",
        "frozen_commit": f"{rng.getrandbits(40):010x}",
    }
    coverage = {
        "sentence": (
            f"Syntology has checked {checked:,} of the {newer:,} papers on this site "
            "that are newer than the archive; results from the others appear after "
            "they are checked."
        ),
        "complete": False,
        "papers_newer_than_archive": newer,
        "papers_checked": checked,
        "papers_extracted_not_yet_verified": not_verified,
        "boards_without_verdict": rng.randint(0, 5),
        "papers_not_yet_extracted": newer - checked - not_verified,
    }
    read_at = datetime.datetime(2026, 9, 25, tzinfo=datetime.UTC)
    return RunFacts(measurement, coverage, read_at)


def _category_note(rng, categories):
    if len(categories) > 1 and rng.random() < 0.5:
        return "the task is listed under several areas; the first is shown"
    return None


def _page(archive, facts, count):
    rng = archive.rng
    task = archive.pick_task()
    dataset = archive.pick_dataset(task.categories[0])
    slug = archive.board_slug(task, dataset)
    names = _page_metrics(rng, task)
    columns = [_MetricColumn(rng, name) for name in names]
    rows = _rows(archive, task, columns, count)
    source = dict(SOURCE)
    if rng.random() < 0.03:
        source["rows_withheld_as_spam"] = rng.randint(1, 3)
    from_dataset = rng.random() < 0.1 or not task.description
    read_at = facts.read_at + datetime.timedelta(seconds=rng.randrange(2 * 86400))
    return {
        "url": f"/sota/{slug}",
        "task": {"name": task.name, "url": f"/task/{task.slug}", "note": task.note},
        "dataset": {"name": dataset.name, "url": f"/dataset/{dataset.slug}"},
        "category": task.categories[0],
        "categories": list(task.categories),
        "category_note": _category_note(rng, task.categories),
        "description": dataset.description if from_dataset else task.description,
        "description_from": "dataset" if from_dataset else "task",
        "source": source,
        "metrics": names,
        "metric_direction": {
            "note": DIRECTION_NOTE,
            "by_metric": {name: INFERRED_DIRECTIONS.get(name) for name in names},
        },
        "counts": derive.page_counts(rows),
        "rows": rows,
        "since_archive": _since_archive(rng, facts, columns, rng.random() < 0.1),
        "syntology": _page_syntology(rows, read_at.isoformat()),
    }


def generate_pages(boards, seed):
    """Yield `boards` page dicts in the seed format, the same for the same seed."""
    rng = random.Random(seed)
    facts = _run_facts(rng)
    archive = _Archive(rng)
    for count in _row_counts(rng, boards):
        yield _page(archive, facts, count)


# Writing -----------------------------------------------------------------


@dataclass(slots=True)
class Written:
    pages: int = 0
    rows: int = 0
    papers: int = 0


def page_slug(page):
    return page["url"].removeprefix("/sota/")


def dump_page(page):
    """Compact JSON, as the seed file is written."""
    return compact_json(page)


def write_pages(pages, directory):
    """Write each page to `directory/<slug>.json`; return what was written."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    written = Written()
    papers = set()
    for page in pages:
        path = directory / f"{page_slug(page)}.json"
        path.write_text(dump_page(page), encoding="utf-8")
        written.pages += 1
        written.rows += len(page["rows"])
        papers.update(paper_identity(row) for row in page["rows"])
    written.papers = len(papers)
    return written


def main(argv=None):
    """`python -m tools.synthetic_pages --out DIR [--boards N] [--seed S]`."""
    import argparse
    import time

    parser = argparse.ArgumentParser(
        prog="python -m tools.synthetic_pages",
        description=(
            "Write synthetic leaderboard page files (SPEC 1 format), one DIR/<slug>.json "
            "per board, for load tests: --boards 15000 gives about 150,000 rows behind "
            "about 60,000 papers. The same --seed gives the same files."
        ),
    )
    parser.add_argument("--out", required=True, type=Path, help="folder to write into")
    parser.add_argument("--boards", type=int, default=15000, help="how many pages (15000)")
    parser.add_argument("--seed", default="1", help="random seed (default 1)")
    options = parser.parse_args(argv)
    if options.boards < 0:
        parser.error("--boards must be zero or more")
    if options.out.exists() and not options.out.is_dir():
        parser.error(f"{options.out} exists and is not a folder")
    # An integer seed and its digits as text give different pages; the digits
    # the user typed are read as the number they mean.
    seed = int(options.seed) if options.seed.lstrip("-").isdigit() else options.seed
    started = time.perf_counter()
    written = write_pages(generate_pages(options.boards, seed), options.out)
    print(
        f"{written.pages} pages, {written.rows} rows, {written.papers} papers "
        f"written to {options.out} in {time.perf_counter() - started:.1f} s"
    )


if __name__ == "__main__":
    main()
