"""One type per lane payload: what a lane writes, its report view reads and the tests build.

Each lane's ``data`` is declared once, as a ``TypedDict`` in a module of this
package (``lanes.payloads.timing`` ...). The lane's writer fills it, mypy
checks the writer, the report view and the test fixtures against it, and
``lanes/envelope.schema.json`` is generated from it
(:mod:`lanes.payloads.schema`; a test fails when the committed file drifts).

Nothing is imported here: a lane imports its own payload module (or only
names it under ``TYPE_CHECKING`` on a hot path such as the slow plugin), and
:mod:`lanes.payloads.registry` is the one list of every lane's type.
"""
