package dev.mailroom.it.topology;

import dev.mailroom.it.support.ChaosLedger;

/**
 * ChaosIT's hung relay, on its topology: {@code chaos.load} jobs under way, then the proxy between the nodes and the
 * SMTP relay ({@link ChaosIT#relayProxy}) stops forwarding in both directions for {@code chaos.relay-outage-seconds}
 * without closing a connection, then forwards what waited. Every send waiting on the relay must give up within the
 * SMTP timeouts ({@code MAILROOM_SMTP_READ_TIMEOUT_MS}), the smtp breaker must be seen open (the line stops as for a
 * refused connection), nothing may be dead-lettered, and every job finishes afterwards, none sent twice. A send that
 * hung after its final dot is an {@code unknown} outcome by design: settled as an operator does (the relay's log), and
 * then each must be at the relay exactly once.
 */
final class RelayBlackholeScenario {

    private RelayBlackholeScenario() {
    }

    static ChaosLedger.Line run() throws Exception {
        return ChaosIT.outageWithoutDeadLetters("chaos-relayhang", "relay hung " + ChaosIT.RELAY_OUTAGE.toSeconds()
                        + " s (blackhole)", ChaosIT.RELAY_OUTAGE, () -> ChaosIT.relayProxy.blackhole(true),
                () -> ChaosIT.relayProxy.blackhole(false), "the smtp breaker open (GET /api/v1/providers)",
                ChaosIT::smtpBreakerOpen, true);
    }
}
