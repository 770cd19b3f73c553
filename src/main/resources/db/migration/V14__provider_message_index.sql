-- Reconciliation (issue 11) matches every provider event first by the provider's message id recorded at send:
-- without an index each event would scan mail_job.
create index ix_mail_job_provider_message on mail_job (provider_message_id);
