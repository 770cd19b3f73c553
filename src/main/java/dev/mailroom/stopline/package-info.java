/**
 * Stop the line: when the world fails (our credentials refused, every provider of a queue's chain open, a
 * burst of systemic-looking dead letters, the database gone), a send queue's consumers are paused and its jobs
 * wait on the broker, instead of every job failing on its own and filling the dead-letter queue.
 *
 * <p>The decision to pause or resume is a pure function ({@link dev.mailroom.stopline.StopLinePolicy}: the
 * line's state and one signal to a sealed {@link dev.mailroom.stopline.LineDecision}); the dead-letter rate is a
 * pure sliding window ({@link dev.mailroom.stopline.DeadLetterRateWindow}). {@link dev.mailroom.stopline.StopLine}
 * carries decisions out (consumers through {@code platform.ConsumerControl}, a {@code queue_pause} row, CDI
 * events the alert side observes); {@link dev.mailroom.stopline.LineProbe} lifts a pause by a probe. The send
 * path calls in through thin hooks; this package never imports {@code send}: it reaches the send path only
 * through {@link dev.mailroom.stopline.QueueHandler}.
 *
 * <p>May use: platform, job, provider, recoverability, deadletter.
 */
package dev.mailroom.stopline;
