"""The mutation lane: mutmut over a registry of modules, sharded, merged and ratcheted (docs/how-to/mutation.md)."""
