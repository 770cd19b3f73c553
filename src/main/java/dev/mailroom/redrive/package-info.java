/**
 * Redrive: acting on dead letters in bulk and one by one, safely. A plan freezes a filtered cohort
 * (dry run by default); a run replays it staged (a sample, a wait for its outcomes, then the rest at a
 * set rate), claims each entry exclusively, republishes with the original idempotency key and ends in
 * a recovery record. Discarding a cohort and editing a payload before its replay live here too.
 *
 * <p>May use: platform, job, recoverability, deadletter.
 */
package dev.mailroom.redrive;
