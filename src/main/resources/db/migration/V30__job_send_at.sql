-- A job's send_at (schema_version 2): it waits on the broker as a scheduled copy until then, in state scheduled;
-- null for a job that goes at once.
alter table mail_job add column send_at timestamp with time zone;
