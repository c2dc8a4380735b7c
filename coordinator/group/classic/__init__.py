"""The classic group protocol (JoinGroup, SyncGroup, Heartbeat, LeaveGroup): the groups,
their states, and the rebalance that moves them from one generation to the next."""
