"""The backend's one exception type.

In: nothing.  Out: ``BackendError`` (a ``ValueError`` with a one-line message), raised
for exhausted noise budgets, programs or layouts the packing cannot represent, and
parameters below 128-bit security without the ``insecure`` flag.
"""

from __future__ import annotations

from eqsat.errors import UserError


class BackendError(UserError, ValueError):
    """An encrypted run that cannot (or must not) go ahead; the message is one line."""
