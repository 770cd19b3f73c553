-- The delivery watch looks for jobs still sent_to_provider past their provider's silence limit. It read every such job
-- older than the shortest limit each minute, the ones it had reported already too: with a provider that sends no
-- webhooks every job stays sent_to_provider, so that read grew with the history retention keeps (bench/README.md,
-- "History"). A job now carries when the watch is next to look at it, null once there is nothing more to look for
-- (a provider event came, or the job was reported silent): the watch reads the jobs due through the index, not the
-- history it is done with. Jobs sent before this migration that the watch has still to judge are due at their send.
alter table mail_job add column silence_check_at timestamp with time zone;
update mail_job set silence_check_at = sent_at
where state = 'sent_to_provider' and sent_at is not null
  and not exists (select 1 from job_event e where e.job_id = mail_job.id
                  and e.type in ('delivery_silent', 'delivery_state'))
  and not exists (select 1 from job_recipient r where r.job_id = mail_job.id and r.delivery_state is not null);
create index ix_mail_job_silence_check on mail_job (silence_check_at);
