/**
 * The job contract and its ledger: the JMS payload (published as
 * {@code /schema/mailroom-job.schema.json}, mirrored by {@link dev.mailroom.job.SendJob}), its parsing
 * and validation on receipt ({@link dev.mailroom.job.JobParser}), template rendering, the message as it
 * came off a queue ({@link dev.mailroom.job.Incoming}), and the job's persistent state: jobs, attempts,
 * timeline events and idempotency claims ({@link dev.mailroom.job.JobLedger}). The ledger gathers facts and
 * records what the pure admission and suppression policies of {@code recoverability} decide.
 *
 * <p>May use: contract, platform, provider, recoverability.
 */
package dev.mailroom.job;
