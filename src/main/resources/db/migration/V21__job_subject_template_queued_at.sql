-- What support recognises a job by, kept from its payload when it is first received (the payload itself is not
-- kept once sent): its subject (rendered content) or its template, and when the producer queued it (the JMS
-- timestamp of the message, set by the producer's send) beside received_at (when Mailroom took it). Jobs received
-- before this migration have none of the three.
alter table mail_job add column subject varchar(1000);
alter table mail_job add column template_id varchar(200);
alter table mail_job add column queued_at timestamp with time zone;
