package dev.mailroom.job;

import java.time.Instant;

/**
 * An ordering key held after a dead-lettered head (a queue set to {@code hold}): why, since when, after which place,
 * and how many of its jobs wait for an operator to release it.
 */
public record HeldKey(String queue, String orderingKey, String heldReason, Instant heldAt, long heldAfterSeq,
                      long waiting) {
}
