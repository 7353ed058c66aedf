"""The mutation lane: mutmut over a registry of modules, sharded, merged and ratcheted (README: "The mutation lane")."""
