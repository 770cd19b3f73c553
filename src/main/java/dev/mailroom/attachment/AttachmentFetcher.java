package dev.mailroom.attachment;

import java.io.IOException;
import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Fetches one attachment by reference with the JDK's HttpClient: redirects are not followed by the client but one by
 * one here, each target decided by {@link SourceRule} again (and its host resolved again); the whole fetch, body
 * included, is bounded by {@link AttachmentSettings#timeout()}; no more than the declared size plus one byte is read;
 * the bytes are checked against the declared size and SHA-256. Never throws for the source's faults: every way out
 * is a {@link FetchOutcome}.
 *
 * <p>The host is resolved here for the rule and again by the client for the connection; a name whose answer changes
 * in between (DNS rebinding) could slip through that gap, which is why a name that resolves inside the network is
 * refused unless a prefix names such an address itself.
 */
public final class AttachmentFetcher {

    /** How a host name becomes addresses; the system resolver in production, a table in tests. */
    public interface Resolver {
        List<InetAddress> resolve(String host) throws UnknownHostException;
    }

    /** Kept of a refusing source's body, for the attempt record. */
    private static final int MAX_ERROR_BODY = 300;

    private final AttachmentSettings settings;
    private final Resolver resolver;
    private final HttpClient client;

    public AttachmentFetcher(AttachmentSettings settings) {
        this(settings, host -> Arrays.asList(InetAddress.getAllByName(host)));
    }

    public AttachmentFetcher(AttachmentSettings settings, Resolver resolver) {
        this.settings = settings;
        this.resolver = resolver;
        this.client = HttpClient.newBuilder()
                .connectTimeout(settings.connectTimeout())
                .followRedirects(HttpClient.Redirect.NEVER)
                .version(HttpClient.Version.HTTP_1_1) // no h2c upgrade dance with a file server
                .build();
    }

    /** Fetches {@code url}, expecting {@code size} bytes whose SHA-256 is {@code sha256} (lower-case hex). */
    public FetchOutcome fetch(String url, String sha256, long size) {
        long deadline = System.nanoTime() + settings.timeout().toNanos();
        String current = url;
        for (int hop = 0; hop <= settings.maxRedirects(); hop++) {
            FetchOutcome refused = check(current, hop == 0 ? "" : "a redirect to " + current + ": ");
            if (refused != null) {
                return refused;
            }
            Hop result = request(current, size, deadline);
            if (result.outcome() != null) {
                return result.outcome() instanceof FetchOutcome.Fetched f ? verify(f.content(), sha256, size)
                        : result.outcome();
            }
            current = result.location();
        }
        return new FetchOutcome.Refused("more than " + settings.maxRedirects() + " redirects");
    }

    /** The rule's refusal of {@code url}, or null when it may be fetched. */
    private FetchOutcome check(String url, String what) {
        String host;
        try {
            host = URI.create(url).getHost();
        } catch (IllegalArgumentException e) {
            return new FetchOutcome.Refused(what + "not a URL");
        }
        List<InetAddress> addresses;
        try {
            addresses = host == null ? List.of() : resolver.resolve(host);
        } catch (UnknownHostException e) {
            return new FetchOutcome.Unreachable(UnknownHostException.class.getName(), what + "host " + host
                    + " does not resolve");
        }
        if (SourceRule.decide(url, settings.allowedPrefixes(), addresses) instanceof SourceRule.Refused r) {
            return new FetchOutcome.Refused(what + r.why());
        }
        return null;
    }

    /** One request's outcome, or the location it redirects to. */
    private record Hop(FetchOutcome outcome, String location) {
    }

    private Hop request(String url, long size, long deadline) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
            return new Hop(timedOut(), null);
        }
        HttpRequest request = HttpRequest.newBuilder(URI.create(url)).GET()
                .timeout(java.time.Duration.ofNanos(left)).build();
        CompletableFuture<HttpResponse<Body>> call = client.sendAsync(request,
                info -> new LimitedBody(info.statusCode() / 100 == 2 ? size + 1 : MAX_ERROR_BODY));
        try {
            HttpResponse<Body> response = call.get(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            int status = response.statusCode();
            if (status / 100 == 3 && status != 304) {
                return response.headers().firstValue("Location")
                        .map(l -> new Hop(null, URI.create(url).resolve(l.trim()).toString()))
                        .orElse(new Hop(new FetchOutcome.Answered(status, "a redirect without a Location"), null));
            }
            if (status / 100 != 2) {
                return new Hop(new FetchOutcome.Answered(status, response.body().text()), null);
            }
            Body body = response.body();
            if (body.truncated()) {
                return new Hop(new FetchOutcome.Mismatch("more than the declared " + size + " bytes"), null);
            }
            return new Hop(new FetchOutcome.Fetched(body.bytes()), null);
        } catch (TimeoutException e) {
            call.cancel(true);
            return new Hop(timedOut(), null);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause() == null ? e : e.getCause();
            if (cause instanceof java.net.http.HttpTimeoutException && !(cause instanceof java.net.http.HttpConnectTimeoutException)) {
                // the request's own timeout (the time left of the fetch's) fired before the wait above did
                return new Hop(timedOut(), null);
            }
            return new Hop(new FetchOutcome.Unreachable(cause.getClass().getName(), String.valueOf(cause.getMessage())),
                    null);
        } catch (IllegalArgumentException e) {
            return new Hop(new FetchOutcome.Refused("a redirect's Location is not a URL: " + e.getMessage()), null);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            call.cancel(true);
            return new Hop(new FetchOutcome.Unreachable(InterruptedException.class.getName(), "interrupted"), null);
        }
    }

    private FetchOutcome timedOut() {
        return new FetchOutcome.Unreachable(TimeoutException.class.getName(),
                "no complete answer within " + settings.timeout() + " (" + AttachmentSettings.TIMEOUT + ")");
    }

    private static FetchOutcome verify(byte[] content, String sha256, long size) {
        if (content.length != size) {
            return new FetchOutcome.Mismatch(content.length + " bytes, the job declared " + size);
        }
        String actual = dev.mailroom.provider.MailAttachment.sha256Of(content);
        if (!actual.equals(sha256)) {
            return new FetchOutcome.Mismatch("SHA-256 " + actual + ", the job declared " + sha256);
        }
        return new FetchOutcome.Fetched(content);
    }

    /** A body read up to a limit; what lies beyond is not read (the stream is cancelled) but noted. */
    record Body(byte[] bytes, boolean truncated) {
        String text() {
            return new String(bytes, java.nio.charset.StandardCharsets.UTF_8);
        }
    }

    /** Collects at most {@code limit} bytes, then cancels the stream. */
    private static final class LimitedBody implements HttpResponse.BodySubscriber<Body> {
        private final long limit;
        private final java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        private final CompletableFuture<Body> result = new CompletableFuture<>();
        private Flow.Subscription subscription;

        LimitedBody(long limit) {
            this.limit = limit;
        }

        @Override
        public CompletionStage<Body> getBody() {
            return result;
        }

        @Override
        public void onSubscribe(Flow.Subscription s) {
            subscription = s;
            s.request(Long.MAX_VALUE);
        }

        @Override
        public void onNext(List<ByteBuffer> buffers) {
            if (result.isDone()) {
                return;
            }
            for (ByteBuffer b : buffers) {
                int take = (int) Math.min(b.remaining(), limit - out.size());
                if (take > 0) {
                    byte[] chunk = new byte[take];
                    b.get(chunk);
                    out.write(chunk, 0, take);
                }
                if (out.size() >= limit) {
                    break;
                }
            }
            if (out.size() >= limit) {
                result.complete(new Body(out.toByteArray(), true));
                subscription.cancel();
            }
        }

        @Override
        public void onError(Throwable t) {
            result.completeExceptionally(t instanceof IOException ? t : new IOException(t));
        }

        @Override
        public void onComplete() {
            result.complete(new Body(out.toByteArray(), false));
        }
    }
}
