/**
 * The send path: the message-driven beans that consume the send queues inside JTA transactions
 * ({@link dev.mailroom.send.SendConsumer}, {@link dev.mailroom.send.BulkSendConsumer}), the
 * {@link dev.mailroom.send.SendService} that takes a delivery from receipt to one provider call, and
 * the {@link dev.mailroom.send.RecoveryExecutor} that carries out what the pure policies decide.
 * Calls into {@code stopline} through its hooks; the events it fires (an unknown provider code, an unknown send)
 * are observed by {@code alert}, and {@code ops} reads its provider breakers.
 *
 * <p>May use: contract, platform, job, provider, recoverability, deadletter, stopline, attachment (a job's files, fetched
 * after its claim).
 */
package dev.mailroom.send;
