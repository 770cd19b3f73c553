-- Several nodes (issue 12): work that must happen once (the DLQ sweeper, the dead-letter monitor and
-- retention, the reconciliation job, taking over a dead node's redrive runs) runs on the node holding its
-- lease. One row per lease; taken, renewed and taken over by an update conditional on `version`, so
-- exactly one node holds it. `holder` null: free (never taken, or released at a clean shutdown).
-- A node also holds a lease `node:<node id>` while it runs: its liveness, as the other nodes see it.
create table lease (
    name        varchar(200) primary key,
    holder      varchar(200),
    expires_at  timestamp with time zone not null,
    version     bigint not null,
    taken_at    timestamp with time zone
);
