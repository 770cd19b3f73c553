package dev.mailroom.ops.api;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.mailroom.platform.Json;
import jakarta.ws.rs.ext.ContextResolver;
import jakarta.ws.rs.ext.Provider;

/** JSON as the job contract writes it: snake_case names, ISO-8601 instants ({@link Json}). */
@Provider
public class JacksonConfig implements ContextResolver<ObjectMapper> {

    private final ObjectMapper mapper = Json.snakeCaseMapper();

    @Override
    public ObjectMapper getContext(Class<?> type) {
        return mapper;
    }
}
