-- Stop the line: a send queue whose consumers were paused, why and since when, so that a pause outlives a
-- restart of the server. One row per paused queue; resuming deletes it. (A pause because the database does
-- not answer cannot be written here; it is kept in memory and ends when the database answers.)
create table queue_pause (
    queue         varchar(200)  primary key,
    reason        varchar(40)   not null,
    detail        varchar(2000),
    paused_since  timestamp with time zone not null
);
