package dev.mailroom.send;

import dev.mailroom.job.JobLedger;
import dev.mailroom.job.MailJob;
import dev.mailroom.platform.Refused;
import java.util.List;

/** What every operator's action on one job asks first: which job it is, and why. */
final class OperatorRequests {

    private OperatorRequests() {
    }

    /** The job with {@code messageId} (on {@code queue} if given); refused when there is none or several. */
    static MailJob job(JobLedger ledger, String messageId, String queue) {
        List<MailJob> found = ledger.byMessageId(messageId, queue);
        if (found.isEmpty()) {
            throw new Refused.NotFound("job_not_found", "no job with message_id '" + messageId + "'"
                    + (queue == null ? "" : " on queue " + queue));
        }
        if (found.size() > 1) {
            throw new Refused.Conflict("ambiguous_message_id", "message_id '" + messageId + "' is on several queues "
                    + found.stream().map(MailJob::getQueue).toList() + "; name the queue");
        }
        return found.get(0);
    }

    /** The operator's reason, stripped; refused when missing or too long (it is recorded on the job's timeline). */
    static String reason(String reason) {
        if (reason == null || reason.isBlank()) {
            throw new Refused.Invalid("reason_required", "say why: {\"reason\": \"...\"} (recorded on the job's timeline)");
        }
        if (reason.length() > 1000) {
            throw new Refused.Invalid("reason_too_long", "a reason is at most 1000 characters");
        }
        return reason.strip();
    }
}
