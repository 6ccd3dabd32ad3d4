"""The update planner shared by `site-gen plan` and planner.html.

The page runs the same rules in JavaScript (templates/assets/planner.js); a shared
corpus of questions and answers (tests/data/planner_corpus.json) holds the two equal.
"""
