package com.example.template;

interface ConfigStore {

	// Refuses the write if a write with a higher fencing token was accepted before it.
	void write(String key, String value, long fencingToken);

}
