package dev.mailroom.ops.api;

import dev.mailroom.deadletter.DeadLetterFilter;
import dev.mailroom.platform.Refused;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MultivaluedMap;
import jakarta.ws.rs.core.UriInfo;
import java.util.List;
import java.util.Set;
import java.util.function.BinaryOperator;

/**
 * A {@link DeadLetterFilter} from the query string ({@code @BeanParam}): every field by its wire name, so the list,
 * the groups and a plan take the same names with the same rules. Bound from the whole query rather than a
 * {@code @QueryParam} per field, so a field added to the filter is a parameter at once; a name that is neither a
 * field nor one of the endpoint's own parameters is refused, because a mistyped filter ({@code recipent=}) would
 * otherwise widen the list (and a plan made from it) silently.
 */
public class DeadLetterFilterParam {

    @Context
    UriInfo uri;

    /** The filter; {@code endpoint}: the endpoint's own parameters besides the filter's ({@code limit}, ...). */
    DeadLetterFilter filter(String... endpoint) {
        return filter(uri.getQueryParameters(), Set.of(endpoint), (name, given) -> given);
    }

    /**
     * {@link #filter(String...)} with {@code read} turning a field's given text (null: not given) into the value the
     * filter takes (the groups read open dead letters unless told otherwise).
     */
    DeadLetterFilter filter(BinaryOperator<String> read, String... endpoint) {
        return filter(uri.getQueryParameters(), Set.of(endpoint), read);
    }

    static DeadLetterFilter filter(MultivaluedMap<String, String> query, Set<String> endpoint,
                                   BinaryOperator<String> read) {
        for (String name : query.keySet()) {
            if (!DeadLetterFilter.NAMES.contains(name) && !endpoint.contains(name)) {
                throw new Refused.Invalid("invalid_filter", "unknown parameter " + name + "; the filters are "
                        + String.join(", ", DeadLetterFilter.NAMES)
                        + (endpoint.isEmpty() ? "" : ", and this endpoint also takes " + String.join(", ", endpoint)));
            }
        }
        return DeadLetterFilter.parse(name -> {
            List<String> values = query.get(name);
            if (values != null && values.size() > 1) {
                throw new Refused.Invalid("invalid_" + name, name + " is given " + values.size()
                        + " times; a filter takes one value");
            }
            return read.apply(name, values == null || values.isEmpty() ? null : values.get(0));
        });
    }
}
