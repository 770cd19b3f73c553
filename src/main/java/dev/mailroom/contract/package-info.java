/**
 * The job contract, the one place that says what a valid send job is: the JSON schema
 * ({@code /schema/mailroom-job.schema.json}), the rules a schema cannot say (body size, nesting depth, duplicate keys,
 * headers Mailroom owns, dates {@link java.time.OffsetDateTime} can read) and the reasons a job is refused
 * ({@link dev.mailroom.contract.RejectReason}). The server's parser ({@code job.JobParser}) and the producers' client
 * ({@code client.MailJob}) both run {@link dev.mailroom.contract.JobContract#check}, so a job the client builds is a
 * job the server reads. Shipped in the client jar: it depends on Jackson and the schema validator only.
 *
 * <p>May use: nothing of Mailroom's.
 */
package dev.mailroom.contract;
