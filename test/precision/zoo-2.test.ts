import { zooPart } from './zoo.ts';

zooPart(1, 3);
