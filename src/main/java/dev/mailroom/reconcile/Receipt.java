package dev.mailroom.reconcile;

/** What became of one webhook call. */
public sealed interface Receipt {

    /** No such profile is configured: the endpoint does not exist for it. */
    record UnknownProfile(String profile) implements Receipt {
    }

    /** Verified and stored in the inbox ({@code duplicate}: the same provider id was already stored; nothing new). */
    record Stored(long eventId, boolean duplicate) implements Receipt {
    }

    /** Not genuine, not fresh, replayed or too big: nothing stored, only counted and logged. */
    record Refused(Verdict.Reason reason, String detail) implements Receipt {
    }
}
