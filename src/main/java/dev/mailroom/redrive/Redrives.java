package dev.mailroom.redrive;

import jakarta.enterprise.context.ApplicationScoped;
import java.util.List;

/**
 * The redrive capability's entry point for every adapter (REST, JMX, console): plan, run, resume,
 * abandon, read records. Refusals are {@link dev.mailroom.ops.Refused}.
 */
@ApplicationScoped
public class Redrives {

    /** Freezes the cohort the request's filter selects now: a dry run, nothing is touched. */
    public RedriveRecord plan(RedriveRequest request, String actor) {
        throw new UnsupportedOperationException("in progress");
    }

    /** Starts a planned run (a discard plan completes before this returns). */
    public RedriveRecord run(String planId, String actor) {
        throw new UnsupportedOperationException("in progress");
    }

    /** Continues an interrupted or stopped run with the entries it has not published. */
    public RedriveRecord resume(String planId, String actor) {
        throw new UnsupportedOperationException("in progress");
    }

    /** Ends an interrupted or stopped run: its unpublished entries are open again. */
    public RedriveRecord abandon(String planId, String actor, String reason) {
        throw new UnsupportedOperationException("in progress");
    }

    public RedriveRecord record(String planId) {
        throw new UnsupportedOperationException("in progress");
    }

    /** The newest plans and runs, without their entries. */
    public List<RedriveRecord> recent(int limit) {
        throw new UnsupportedOperationException("in progress");
    }

    /** Replays one dead letter (its latest revision, if edited) now: a one-entry plan, run at once. */
    public RedriveRecord replayOne(long deadLetterId, String actor, String reason) {
        throw new UnsupportedOperationException("in progress");
    }
}
