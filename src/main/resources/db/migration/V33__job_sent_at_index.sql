-- The delivery watch's bounce and complaint rates read the jobs sent in their window (default 24 hours) every
-- minute: without an index on sent_at that read was every job's row, a million at a million jobs of history
-- (bench/README.md, "History").
create index ix_mail_job_sent_at on mail_job (sent_at);
