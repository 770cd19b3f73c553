package dev.mailroom.deadletter;

/**
 * CDI event fired when a dead letter is recorded; observers that alert or count use
 * {@code @Observes(during = TransactionPhase.AFTER_SUCCESS)}, so nothing is announced that rolled back.
 */
public record DeadLetterArrived(long deadLetterId, DeadLetterEnvelope envelope, boolean firstTime) { }
