-- Retention of finished jobs: a removed job's idempotency claim outlives it (kept_until, set when its job is
-- removed; null while the job exists), so send_claim loses its foreign key to mail_job. The table is rebuilt
-- because the constraint has no name to drop that H2 and PostgreSQL share.
create table send_claim_kept (
    idempotency_key varchar(200) primary key,
    job_id          bigint not null,
    claimed_at      timestamp with time zone not null,
    kept_until      timestamp with time zone
);
insert into send_claim_kept (idempotency_key, job_id, claimed_at)
    select idempotency_key, job_id, claimed_at from send_claim;
drop table send_claim;
alter table send_claim_kept rename to send_claim;
create index ix_send_claim_job on send_claim (job_id);
create index ix_send_claim_kept_until on send_claim (kept_until);
-- A retention pass reads finished jobs by state and age, oldest first; the oldest one's age is a metric.
create index ix_mail_job_state_updated on mail_job (state, updated_at);
-- The children of a job are deleted by job id: job_attempt and job_recipient are led by it (unique and primary
-- keys), job_event has ix_job_event_job; dead_letter's rows are detached from a removed job by it.
create index ix_dead_letter_job on dead_letter (job_id);
