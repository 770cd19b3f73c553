package dev.mailroom.job;

/**
 * A job of an ordering key released: the job before it ended, so its waiting delivery is published again, as a copy
 * that then owns the job ({@link KeyLedger#released}).
 */
public record KeyRelease(long jobId, Incoming delivery) {
}
