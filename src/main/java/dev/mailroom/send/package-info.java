/**
 * The send path: the message-driven beans that consume the send queues inside JTA transactions
 * ({@link dev.mailroom.send.SendConsumer}, {@link dev.mailroom.send.BulkSendConsumer}), the
 * {@link dev.mailroom.send.SendService} that takes a delivery from receipt to one provider call, and
 * the {@link dev.mailroom.send.RecoveryExecutor} that carries out what the pure policies decide.
 * Uses {@code job}, {@code provider}, {@code recoverability} and {@code deadletter}; nothing uses it.
 */
package dev.mailroom.send;
