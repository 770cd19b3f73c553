package dev.mailroom.recoverability;

import java.util.Objects;

/**
 * What the decisions need to know about the provider a job goes (or went) to.
 *
 * @param name                     the provider's name as recorded on attempts ({@code smtp}, {@code http})
 * @param dedupesByIdempotencyKey  whether the provider itself drops a second request with the same
 *                                 idempotency key (HTTP APIs with an idempotency header do; SMTP does not)
 */
public record ProviderTraits(String name, boolean dedupesByIdempotencyKey) {

    public ProviderTraits {
        Objects.requireNonNull(name, "name");
    }

    /**
     * The one rule for a send that may have reached the provider (its call passed the point of no
     * return and then failed without a definite answer, or its worker died): send it again only to a
     * provider that drops a duplicate by its idempotency key. Anywhere else a second send could be a
     * second mail, so the job ends {@code unknown} and an operator decides. Both paths use it: the
     * call-time path ({@link RecoverabilityPolicy}) and the crash path ({@link AdmissionPolicy}).
     */
    public boolean mayResendAmbiguous() {
        return dedupesByIdempotencyKey;
    }
}
