-- The stop-the-line probe's write test (DatabaseWrites): a database whose disk is full still answers reads, so a line
-- it stopped by refusing writes starts again only once a write that needs new space goes through. The probe empties
-- this table and writes one row into it; it holds nothing else. H2 (MODE=PostgreSQL) and PostgreSQL alike.
create table db_write_probe (
    id bigint primary key,
    written_at timestamp with time zone not null
);
