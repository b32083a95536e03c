"""The operators' inbox: the conversations that wait for a person or are live, with what they asked, how long they
have waited and what is unread; dismissing a request, and marking a conversation read."""
