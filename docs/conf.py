"""Sphinx configuration of vcgmm's documentation (built by .ci/run with -W)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import vcgmm

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # bench/ for the Table 1 example

project = "vcgmm"
author = "vcgmm developers"
copyright = "2026, vcgmm developers"
release = vcgmm.__version__
version = ".".join(release.split(".")[:2])

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.intersphinx",
    "sphinx.ext.mathjax",
    "sphinx.ext.doctest",
    "numpydoc",
    "sphinx_gallery.gen_gallery",
]

autosummary_generate = True
autodoc_default_options = {
    "members": True,
    "inherited-members": False,
    # scikit-learn's metadata-routing and output helpers are documented there.
    "exclude-members": "set_fit_request,set_score_request,set_predict_request,"
                       "set_transform_request,set_partial_fit_request,set_output,"
                       "get_metadata_routing",
}
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False

# Every reference must resolve offline: no intersphinx inventories are
# fetched (nothing is downloaded at build time).
intersphinx_mapping = {}

sphinx_gallery_conf = {
    "examples_dirs": "examples",
    "gallery_dirs": "auto_examples",
    "filename_pattern": r"/plot_",
    "download_all_examples": False,
    "remove_config_comments": True,
    "within_subsection_order": "FileNameSortKey",
    "abort_on_example_error": True,
    "show_memory": False,
    "matplotlib_animations": False,
    "image_scrapers": ("matplotlib",),
    "reset_modules": ("matplotlib",),
}

html_theme = "pydata_sphinx_theme"
html_title = f"vcgmm {release}"
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
}
html_static_path = []
templates_path = []
exclude_patterns = ["_build", "examples", "auto_examples/*.ipynb", "auto_examples/*.py",
                    "auto_examples/*.zip", "auto_examples/*.md5"]

doctest_global_setup = "import numpy as np\nimport vcgmm"
os.environ.setdefault("OMP_NUM_THREADS", "2")
