-- One row per recipient of a job (issue 11): the address normalised (the addr-spec, trimmed, lower-cased) so
-- "did the password reset reach alice@…?" is an index lookup, and the place where each recipient's own
-- delivery state (deferred, delivered, bounced, complained — or suppressed, never sent) is kept and rolled up
-- to the job. Written with the job row when it is first received.
create table job_recipient (
    job_id          bigint       not null references mail_job (id),
    position        integer      not null,
    kind            varchar(3)   not null,
    address         varchar(320) not null,
    delivery_state  varchar(20),
    delivery_detail varchar(2000),
    delivery_at     timestamp with time zone,
    primary key (job_id, position)
);
create index ix_job_recipient_address on job_recipient (address, job_id);
