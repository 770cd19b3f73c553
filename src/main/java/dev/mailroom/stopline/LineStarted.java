package dev.mailroom.stopline;

import java.time.Duration;
import java.time.Instant;

/** CDI event: a send queue's stopped line started again (why: a probe, the restart time, an operator, ...). */
public record LineStarted(String queue, String reason, String why, Duration stoppedFor, Instant at) {
}
