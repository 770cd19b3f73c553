-- A job whose send may have reached a provider that cannot drop a duplicate ends `unknown`; its original
-- bytes wait here until an operator marks it as sent (the row goes) or sends it again (the bytes go back
-- to its queue, byte-for-byte, and the row goes). H2 (MODE=PostgreSQL) and PostgreSQL alike.
create table held_send (
    job_id        bigint primary key references mail_job (id),
    payload       bytea         not null,
    text_message  boolean       not null,
    traceparent   varchar(200),
    held_at       timestamp with time zone not null
);
