// Text
