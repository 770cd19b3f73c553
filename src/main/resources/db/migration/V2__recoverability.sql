-- Recoverability: what each failed attempt was classified as, whether it used up one of the job's
-- retries (a throttle or a systemic pause does not), and what was decided about it.
alter table job_attempt add column failure_class varchar(40);
alter table job_attempt add column consumed_attempt boolean default true not null;
alter table job_attempt add column decision varchar(300);
