package dev.mailroom.provider.registry;

import dev.mailroom.provider.MailProvider;
import dev.mailroom.provider.OutboundMail;
import dev.mailroom.provider.ProviderResponse;
import dev.mailroom.provider.SendCheckpoint;
import java.util.Objects;

/**
 * A provider instance named in configuration ({@code mailroom.provider.<name>.kind=smtp}): attempts,
 * breakers, rate limits and metrics use its name; its responses keep the kind's name ({@code smtp},
 * {@code http}); its answers are classified by its own kind's table with its own profile
 * ({@code mailroom.provider.<name>.profile}), not by whichever profile the active provider of that kind has.
 */
final class NamedProvider implements MailProvider {

    private final String name;
    private final MailProvider delegate;

    NamedProvider(String name, MailProvider delegate) {
        this.name = Objects.requireNonNull(name, "name");
        this.delegate = Objects.requireNonNull(delegate, "delegate");
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public boolean dedupesByIdempotencyKey() {
        return delegate.dedupesByIdempotencyKey();
    }

    @Override
    public boolean irrevocableFromTheStart() {
        return delegate.irrevocableFromTheStart();
    }

    @Override
    public boolean writesInTheDeliveryTransaction() {
        return delegate.writesInTheDeliveryTransaction();
    }

    @Override
    public ProviderResponse send(OutboundMail mail, SendCheckpoint checkpoint) {
        return delegate.send(mail, checkpoint);
    }

    @Override
    public String mappingTable() {
        return delegate.mappingTable();
    }

    @Override
    public java.util.Optional<String> mappingProfile() {
        return delegate.mappingProfile();
    }

    String kind() {
        return delegate.name();
    }
}
