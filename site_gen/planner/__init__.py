"""`site-gen plan`: the update planner's answers in the terminal.

The rules are the planner page's own scripts (templates/assets/planner-rules.js and yaml-lite.js),
run in an embedded V8 (planner_js); the modules here read the site's files and the pasted
documents, hand them over as JSON, and print the answer (text).
"""
