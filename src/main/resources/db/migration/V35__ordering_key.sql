-- Jobs of one ordering_key on one queue go in the order they arrived (docs/job-contract.md "An ordering key").
-- Each keyed job takes its place in its key (key_seq) at the door, under the lock of its key's row, in the
-- transaction that inserts the job's row; a job that waits behind an earlier one is waiting_for_key, its bytes
-- kept in key_wait until the job before it ends and a copy of it goes to its queue. H2 (MODE=PostgreSQL) and
-- PostgreSQL alike.
alter table mail_job add column ordering_key varchar(200);
alter table mail_job add column key_seq bigint;
create index ix_mail_job_ordering_key on mail_job (queue, ordering_key, key_seq);

-- One row per (queue, key): the last place given, and whether the key is held after a dead-lettered head (a queue
-- set to hold): the jobs after held_after_seq wait until an operator releases the key.
create table ordering_key (
    queue           varchar(200)  not null,
    ordering_key    varchar(200)  not null,
    last_seq        bigint        not null,
    held_after_seq  bigint,
    held_reason     varchar(2000),
    held_at         timestamp with time zone,
    constraint pk_ordering_key primary key (queue, ordering_key)
);

create table key_wait (
    job_id          bigint primary key references mail_job (id),
    jms_message_id  varchar(200),
    payload         bytea         not null,
    text_message    boolean       not null,
    traceparent     varchar(200),
    waiting_since   timestamp with time zone not null
);
