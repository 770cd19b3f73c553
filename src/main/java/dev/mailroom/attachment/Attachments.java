package dev.mailroom.attachment;

import dev.mailroom.contract.Attachment;
import dev.mailroom.contract.AttachmentRule;
import dev.mailroom.contract.RejectReason;
import dev.mailroom.platform.settings.CheckedAtBoot;
import dev.mailroom.platform.settings.SettingsReader;
import dev.mailroom.provider.MailAttachment;
import dev.mailroom.recoverability.Failure;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import org.eclipse.microprofile.config.Config;

/**
 * A job's attachments on the send path. At the door ({@link #admit}), before anything is fetched or claimed: sizes over
 * the limits and URLs under no allowed prefix are refused as poison. At send time ({@link #resolve}), after the job's
 * claim and immediately before the provider's call: inline ones are decoded, those by reference fetched and checked.
 *
 * <p>Why there: a job refused at the door, a duplicate, one put back by a breaker or the rate limit fetches nothing;
 * a fetch that fails is an attempt of the job like a provider's failure (classified, retried or dead-lettered, on its
 * timeline); a crash during the fetch loses nothing, the job is still on the broker and its bytes at their source.
 * Fetched bytes are kept in memory by URL and SHA-256 ({@link ContentCache}), so a retry after a provider's failure
 * does not fetch them again.
 */
@ApplicationScoped
public class Attachments implements CheckedAtBoot {

    @Inject
    Config config;

    private volatile Ready ready;

    private record Ready(AttachmentSettings settings, AttachmentFetcher fetcher, ContentCache cache) {
    }

    /** What resolving a job's attachments came to. */
    public sealed interface Resolution {
    }

    /** Every attachment's bytes, in the job's order. */
    public record Resolved(List<MailAttachment> attachments) implements Resolution {
    }

    /** One could not be fetched; the failure says which, why, and of what class. */
    public record Failed(Failure failure) implements Resolution {
    }

    @Override
    public void checkSettings() {
        ready();
    }

    /** The door's decision on a job's attachments, by this deployment's settings. */
    public AttachmentRule.Decision admit(List<Attachment> attachments) {
        return attachments.isEmpty() ? new AttachmentRule.Allowed() : admit(attachments, ready().settings());
    }

    /**
     * The door's decision, pure: the size limits first ({@link AttachmentRule}), then every URL under an allowed
     * prefix ({@link SourceRule#listedBy}). What a URL resolves to is decided at the fetch, when it is resolved.
     */
    public static AttachmentRule.Decision admit(List<Attachment> attachments, AttachmentSettings settings) {
        AttachmentRule.Decision sizes = AttachmentRule.decide(attachments, settings.maxBytes(), settings.maxJobBytes());
        if (sizes instanceof AttachmentRule.Refused) {
            return sizes;
        }
        for (int i = 0; i < attachments.size(); i++) {
            Attachment a = attachments.get(i);
            if (!a.isInline() && SourceRule.listedBy(a.url(), settings.allowedPrefixes()).isEmpty()) {
                return new AttachmentRule.Refused(RejectReason.attachment_not_allowed, "/attachments/" + i
                        + "/url: " + a.url() + " is under none of " + AttachmentSettings.ALLOWED_PREFIXES
                        + " (" + (settings.allowedPrefixes().isEmpty() ? "none configured"
                        : String.join(", ", settings.allowedPrefixes())) + "); nothing was fetched");
            }
        }
        return new AttachmentRule.Allowed();
    }

    /** The bytes of every attachment, or the first failure. */
    public Resolution resolve(List<Attachment> attachments) {
        if (attachments.isEmpty()) {
            return new Resolved(List.of());
        }
        Ready r = ready();
        List<MailAttachment> out = new ArrayList<>(attachments.size());
        for (int i = 0; i < attachments.size(); i++) {
            Attachment a = attachments.get(i);
            if (a.isInline()) {
                out.add(new MailAttachment(a.filename(), a.contentType(), Base64.getDecoder().decode(a.contentBase64())));
                continue;
            }
            String key = ContentCache.key(a.url(), a.sha256());
            byte[] content = r.cache().get(key).orElse(null);
            if (content == null) {
                FetchOutcome outcome = r.fetcher().fetch(a.url(), a.sha256(), a.size());
                if (!(outcome instanceof FetchOutcome.Fetched fetched)) {
                    return new Failed(FetchFailures.classify(i, a.filename(), a.url(), outcome));
                }
                content = fetched.content();
                r.cache().put(key, content);
            }
            out.add(new MailAttachment(a.filename(), a.contentType(), content));
        }
        return new Resolved(out);
    }

    private Ready ready() {
        Ready r = ready;
        if (r == null) {
            synchronized (this) {
                if (ready == null) {
                    AttachmentSettings s = AttachmentSettings.read(
                            new SettingsReader(key -> config.getOptionalValue(key, String.class)));
                    ready = new Ready(s, new AttachmentFetcher(s), new ContentCache(s.cacheBytes()));
                }
                r = ready;
            }
        }
        return r;
    }
}
