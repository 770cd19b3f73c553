/**
 * The producers' client, shipped as the {@code client} jar beside the WAR: an immutable {@link
 * dev.mailroom.client.MailJob} that a builder refuses to build when it breaks the job contract (the server's own check,
 * {@code contract.JobContract}, so a built job is never poison for a contract reason), {@link
 * dev.mailroom.client.MailroomClient} to put it on a send queue over JMS (in the caller's JTA transaction when the
 * connection factory is enlisted), and {@link dev.mailroom.client.RecordingMailroomClient} for the producer's tests.
 * Depends on the Jakarta JMS API, Jackson and the schema validator only, so it runs in Jakarta EE, Spring and Java SE.
 *
 * <p>May use: contract.
 */
package dev.mailroom.client;
