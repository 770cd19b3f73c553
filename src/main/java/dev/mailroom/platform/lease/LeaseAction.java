package dev.mailroom.platform.lease;

import java.time.Instant;

/** What {@link LeaseRules#decide} answers; the first three are carried out by a conditional update. */
public sealed interface LeaseAction {

    /** One line for the log. */
    String describe();

    /** Nobody holds the lease: take it, if the row is still at {@code version}. */
    record Take(long version) implements LeaseAction {
        @Override
        public String describe() {
            return "takes the free lease";
        }
    }

    /** This node holds it: move its expiry on, if the row is still at {@code version}. */
    record Renew(long version) implements LeaseAction {
        @Override
        public String describe() {
            return "renews its lease";
        }
    }

    /** The holder let it expire (it died, or lost the database): take it over, if the row is still at {@code version}. */
    record TakeOver(String previousHolder, Instant expiredAt, long version) implements LeaseAction {
        @Override
        public String describe() {
            return "takes the lease over from " + previousHolder + ", expired at " + expiredAt;
        }
    }

    /** Another node holds it and is alive: do not do the work. */
    record KeepAway(String holder, Instant until) implements LeaseAction {
        @Override
        public String describe() {
            return "keeps away: held by " + holder + " until " + until;
        }
    }
}
