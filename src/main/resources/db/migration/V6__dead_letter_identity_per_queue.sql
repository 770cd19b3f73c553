-- A dead letter is identified by (consumer, source queue, message_id, lap): the same message_id on
-- mail.send and mail.send.bulk are two dead letters, not one row that both overwrite.
alter table dead_letter drop constraint uq_dead_letter_identity;
alter table dead_letter add constraint uq_dead_letter_identity unique (consumer, source_queue, message_id, lap);

-- Moves the existing rows to the queue they describe: a row that a second queue's dead letter overwrote
-- (before this version) carries that queue's job, envelope and DLQ copy but still names the first queue.
-- Only where that queue has no row of the same identity yet, so the new constraint holds.
update dead_letter set source_queue = (select j.queue from mail_job j where j.id = dead_letter.job_id)
where job_id is not null
  and source_queue <> (select j.queue from mail_job j where j.id = dead_letter.job_id)
  and not exists (select 1 from dead_letter o where o.consumer = dead_letter.consumer
                  and o.message_id = dead_letter.message_id and o.lap = dead_letter.lap
                  and o.source_queue = (select j.queue from mail_job j where j.id = dead_letter.job_id));

-- A replay plan without a sample says so explicitly (skip_sample: true) and its record shows it.
alter table redrive add column skip_sample boolean default false not null;
