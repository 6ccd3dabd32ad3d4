"""The rules the pages and the terminal share, run from Python in an embedded V8 (mini-racer).

The rules are written once, in the asset scripts the pages load (``site_gen/templates/assets``, each a
plain script defining ``const SiteGenX = (() => {...; return {...}})();``). :func:`rules` loads some of
them into one V8 context per process; :meth:`JsRules.call` runs one of their functions. The typed
wrappers of one family of rules sit beside it (:mod:`.release_diff`). See :mod:`.v8_context` for what is
safe across threads and forks.
"""

from .v8_context import (
    DEFAULT_MAX_MEMORY,
    DEFAULT_TIMEOUT,
    READ_JSON,
    JsError,
    JsFunction,
    JsLimitError,
    JsRules,
    Kept,
    rules,
)

__all__ = ["DEFAULT_MAX_MEMORY", "DEFAULT_TIMEOUT", "READ_JSON", "JsError", "JsFunction", "JsLimitError", "JsRules",
           "Kept", "rules"]
