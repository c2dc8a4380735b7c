"""Share groups (KIP-932): the share partition's in-flight records, their acquisition locks
and acknowledgements, the share group's members and the simple assignor."""
