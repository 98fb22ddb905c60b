package io.github.distributedlock.sample;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Settings of the sample application.
 *
 * @param instance name of this instance, shown in the demo's evidence
 * @param deployMillis how long a deployment takes
 * @param priceMillis how long computing a price takes
 */
@ConfigurationProperties("sample")
public record SampleProperties(String instance, long deployMillis, long priceMillis) {

}
