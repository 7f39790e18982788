"""Sphinx configuration of the module documentation, contrib/metaroce/doc/metaroce.rst.

Inside an ns-3 source tree the page is part of ns-3's model library and this file is not used;
scripts/docs.sh builds the page on its own with it: sphinx-build -c doc/sphinx contrib/metaroce/doc.
"""

project = "metaroce"
author = "the metaroce authors"
root_doc = "metaroce"
exclude_patterns = []
# ns-3's model library pages use "sourcecode" for code blocks; Sphinx knows it as an alias.
highlight_language = "none"
html_theme = "alabaster"
html_title = "MetaRoCE for ns-3"
html_show_sourcelink = False
html_theme_options = {"page_width": "1100px", "body_max_width": "none"}
