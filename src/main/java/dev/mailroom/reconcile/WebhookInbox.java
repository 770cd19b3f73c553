package dev.mailroom.reconcile;

import io.micrometer.core.instrument.MeterRegistry;
import dev.mailroom.platform.Meters;
import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import jakarta.transaction.Transactional;
import java.time.Clock;
import java.time.Instant;
import java.util.Map;
import java.util.Set;
import java.util.logging.Logger;
import org.eclipse.microprofile.config.Config;

/**
 * Takes webhook calls in: verifies with the profile's verifier and stores a genuine call raw in
 * {@code provider_event}, keyed by the provider's id so a retry is a no-op. A refusal changes nothing but
 * the {@code mailroom.webhooks} counter and one log line — never with the body, which is the sender's data.
 */
@ApplicationScoped
public class WebhookInbox implements dev.mailroom.platform.settings.CheckedAtBoot {

    private static final Logger LOG = Logger.getLogger(WebhookInbox.class.getName());

    @PersistenceContext(unitName = "mailroom")
    EntityManager em;
    @Inject
    Clock clock;
    @Inject
    @Meters
    MeterRegistry meters;
    @Inject
    Config config;
    @Inject
    jakarta.enterprise.event.Event<Stored> stored;

    /** A call was stored (observed after the commit: the reconciliation takes it at once). */
    public record Stored(long id) {
    }

    private WebhookProfiles profiles;

    @PostConstruct
    void configure() {
        profiles = WebhookProfiles.from(key -> config.getOptionalValue(key, String.class), new HttpsCertificateSource());
        LOG.info(() -> "webhook profiles answering: " + profiles.names());
    }

    /** The profiles are built with the bean: at deployment. */
    @Override
    public void checkSettings() {
        profiles();
    }

    public Set<String> profiles() {
        return profiles.names();
    }

    @Transactional
    public Receipt receive(String profile, Map<String, String> headers, byte[] body) {
        Instant now = clock.instant();
        Verdict verdict = profiles.verify(profile, new WebhookRequest(headers, body), now).orElse(null);
        if (verdict == null) {
            return new Receipt.UnknownProfile(profile);
        }
        if (verdict instanceof Verdict.Refused refused) {
            meters.counter("mailroom.webhooks", "profile", profile, "outcome", refused.reason().name()).increment();
            LOG.warning(() -> "webhook " + profile + " refused (" + refused.reason() + "): " + refused.detail()
                    + "; " + body.length + " bytes, body not logged");
            return new Receipt.Refused(refused.reason(), refused.detail());
        }
        String key = ((Verdict.Accepted) verdict).dedupeKey();
        Long existing = em.createQuery("select e.id from ProviderEvent e where e.profile = :p and e.dedupeKey = :k", Long.class)
                .setParameter("p", profile).setParameter("k", key).getResultStream().findFirst().orElse(null);
        if (existing != null) {
            meters.counter("mailroom.webhooks", "profile", profile, "outcome", "duplicate").increment();
            return new Receipt.Stored(existing, true);
        }
        ProviderEvent event = new ProviderEvent(profile, key, now, body);
        em.persist(event);
        em.flush();
        meters.counter("mailroom.webhooks", "profile", profile, "outcome", "stored").increment();
        stored.fire(new Stored(event.getId()));
        return new Receipt.Stored(event.getId(), false);
    }

    /** The stored events of a profile after inbox id {@code afterId}, oldest first (a page of the inbox). */
    public java.util.List<ProviderEvent> received(String profile, long afterId, int limit) {
        return em.createQuery("select e from ProviderEvent e where e.profile = :p and e.id > :after order by e.id", ProviderEvent.class)
                .setParameter("p", profile).setParameter("after", afterId).setMaxResults(limit).getResultList();
    }
}
