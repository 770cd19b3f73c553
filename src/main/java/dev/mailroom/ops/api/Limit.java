package dev.mailroom.ops.api;

import jakarta.validation.Constraint;
import jakarta.validation.Payload;
import jakarta.validation.ReportAsSingleViolation;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.Pattern;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * A paging number given as text ({@code ?limit=}, {@code ?offset=}, {@code ?hours=}): digits only, within
 * [{@link #min}, {@link #max}]. Bean Validation (Hibernate Validator in WildFly) checks it before the resource
 * runs; a violation is a 400 with {@code error} {@code invalid_<name>} ({@link ErrorMappers.InvalidParameter}).
 * Text rather than {@code int}: JAX-RS answers a query parameter it cannot convert with 404, not 400.
 */
@Pattern(regexp = "[0-9]{1,10}")
@Min(0)
@Max(Integer.MAX_VALUE)
@ReportAsSingleViolation
@Constraint(validatedBy = Limit.Range.class)
@Target({ElementType.PARAMETER, ElementType.FIELD})
@Retention(RetentionPolicy.RUNTIME)
public @interface Limit {

    /** The parameter's name, in the error ({@code invalid_limit}) and the reason. */
    String name() default "limit";

    long min() default 1;

    long max();

    String message() default "invalid_{name}: {name} is a whole number from {min} to {max}";

    Class<?>[] groups() default { };

    Class<? extends Payload>[] payload() default { };

    /** The range check of {@link #min} and {@link #max} (the composed constraints check the digits). */
    class Range implements jakarta.validation.ConstraintValidator<Limit, String> {
        private long min;
        private long max;

        @Override
        public void initialize(Limit limit) {
            min = limit.min();
            max = limit.max();
        }

        @Override
        public boolean isValid(String value, jakarta.validation.ConstraintValidatorContext context) {
            if (value == null) {
                return true;
            }
            try {
                long n = Long.parseLong(value);
                return n >= min && n <= max;
            } catch (NumberFormatException e) {
                return false;
            }
        }
    }
}
