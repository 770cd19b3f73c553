-- A lease's fencing token: the version at which its current holder took it (a take or a take-over; a renewal
-- keeps it). A node checks the token it was given, under the row's lock, in the transaction of every write its
-- lease guards: a node that stopped (a long pause) and lost the lease meanwhile finds another holder or another
-- token, and writes nothing.
alter table lease add column token bigint not null default 0;
